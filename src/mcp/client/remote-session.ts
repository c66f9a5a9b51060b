/**
 * The HTTP side of `hyphae mcp --remote URL`: each message line becomes one `POST /mcp` (under the
 * MCP session id the server minted at initialize) and each reply one line back. What the session
 * negotiated also heads the bridge's GET /mcp push stream.
 */
import { ERROR_SPECS } from '../../core/errors.js';
import type { ErrorCode } from '../../core/errors.js';
import { DIFFS_HEADER, clientWantsDiffs } from '../protocol/diff-extension.js';
import type { JsonRpcId } from '../protocol/json-rpc.js';
import { isPlainObject, serializeError } from '../protocol/json-rpc.js';
import { isSupportedProtocolVersion } from '../protocol/protocol-version.js';
import { MCP_SESSION_HEADER } from '../protocol/session-id.js';
import { API_KEY_HEADER } from '../../surface-shared/index.js';
import { CHANNEL_HEADER } from '../features/push/channel-settings.js';

export interface RemoteSessionOptions {
  /** The server's MCP endpoint, e.g. `http://127.0.0.1:8787/mcp`. */
  readonly url: string;
  readonly apiKey: string;
  readonly fetch: typeof fetch;
  readonly log: (message: string) => void;
  readonly signal?: AbortSignal;
  /** Writes one line (a reply, or an error standing in for one) to the local client. */
  readonly write: (line: string) => void;
  /** The client sent notifications/initialized and the server took it. */
  readonly onInitialized: () => void;
  /** Asks the server for no Claude Code channel events (`x-hyphae-channel: off` on every request and the push stream). */
  readonly declineChannel?: boolean;
  /** Sent on every request and the push stream besides the key (the HydraDB toolset's X-HydraDB-Database / -Collection). */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface RemoteSession {
  /** Sends one line to the server and writes what comes back. */
  forward(line: string): Promise<void>;
  /** The headers of a GET /mcp push stream in this session. */
  pushHeaders(): Record<string, string>;
}

const STATUS_CODES: Readonly<Record<number, ErrorCode>> = {
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  413: 'TOO_LARGE',
  429: 'RATE_LIMITED',
};

function errorCodeForStatus(status: number): ErrorCode {
  return STATUS_CODES[status] ?? (status >= 500 ? 'UNAVAILABLE' : 'INVALID_ARGUMENT');
}

/** A JSON-RPC error line with a facade error code. */
export function errorLine(id: JsonRpcId | null, code: ErrorCode, message: string): string {
  return serializeError(id, { code: ERROR_SPECS[code].rpcCode, message, data: { code } });
}

/** The id of a request line, or undefined for a notification, a response or unreadable input. */
function requestIdOf(message: unknown): JsonRpcId | undefined {
  if (!isPlainObject(message) || typeof message.method !== 'string') return undefined;
  const id = message.id;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function createRemoteSession(options: RemoteSessionOptions): RemoteSession {
  const { url, log, write } = options;
  let protocolVersion: string | undefined;
  let sessionId: string | undefined;
  let wantsDiffs = false;
  const channelHeaders: Record<string, string> = { ...options.headers, ...(options.declineChannel === true ? { [CHANNEL_HEADER]: 'off' } : {}) };

  return {
    async forward(line: string): Promise<void> {
      const parsed = parseJson(line);
      const requestId = requestIdOf(parsed);
      const isNotification = isPlainObject(parsed) && typeof parsed.method === 'string' && !Object.hasOwn(parsed, 'id');
      const isInitialize = isPlainObject(parsed) && parsed.method === 'initialize';
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        [API_KEY_HEADER]: options.apiKey,
        ...channelHeaders,
      };
      if (protocolVersion !== undefined && !isInitialize) headers['mcp-protocol-version'] = protocolVersion;
      if (sessionId !== undefined && !isInitialize) headers[MCP_SESSION_HEADER] = sessionId;
      if (isInitialize && isPlainObject(parsed.params)) wantsDiffs = clientWantsDiffs(parsed.params);
      let response: Response;
      try {
        response = await options.fetch(url, { method: 'POST', headers, body: line, ...(options.signal === undefined ? {} : { signal: options.signal }) });
      } catch (error) {
        log(`remote ${url} unreachable: ${error instanceof Error ? error.message : 'unknown error'}`);
        if (requestId !== undefined) write(errorLine(requestId, 'UNAVAILABLE', `the Hyphae server at ${url} is unreachable`));
        return;
      }
      if (response.status === 202) {
        if (isPlainObject(parsed) && parsed.method === 'notifications/initialized') options.onInitialized();
        return;
      }
      const reply = parseJson(await response.text());
      if (isNotification) {
        // A notification never gets a reply, not even a transport error: log it instead.
        if (response.status >= 400) log(`remote ${url} refused a notification with HTTP ${response.status}`);
        return;
      }
      if (isPlainObject(reply) && reply.jsonrpc === '2.0') {
        if (isInitialize && isPlainObject(reply.result) && isSupportedProtocolVersion(reply.result.protocolVersion)) {
          protocolVersion = reply.result.protocolVersion;
          sessionId = response.headers.get(MCP_SESSION_HEADER) ?? undefined;
        }
        // Transport-level errors (401, 413…) carry id null; give them back the id the client waits on.
        write(JSON.stringify(reply.id === null && requestId !== undefined ? { ...reply, id: requestId } : reply));
        return;
      }
      log(`remote ${url} answered ${response.status} without a JSON-RPC body`);
      if (requestId !== undefined) write(errorLine(requestId, errorCodeForStatus(response.status), `the Hyphae server answered HTTP ${response.status}`));
    },
    pushHeaders(): Record<string, string> {
      return {
        [API_KEY_HEADER]: options.apiKey,
        ...(protocolVersion === undefined ? {} : { 'mcp-protocol-version': protocolVersion }),
        ...(sessionId === undefined ? {} : { [MCP_SESSION_HEADER]: sessionId }),
        ...(wantsDiffs ? { [DIFFS_HEADER]: 'on' } : {}),
        ...channelHeaders,
      };
    },
  };
}
