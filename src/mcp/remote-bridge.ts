/**
 * `hyphae mcp --remote URL`: bridges a local stdio MCP client to a running server's `POST /mcp`,
 * so several agents on one machine share one `hyphae serve`. Each stdin line becomes one POST
 * (under the MCP session id the server minted at initialize); each reply becomes one stdout line.
 * After initialization the bridge also reads the server's GET /mcp stream and writes what it
 * pushes (resources/updated, list_changed, and hyphae/diff when the client declared the
 * experimental `hyphae/diffs` capability) as lines.
 */
import type { Readable, Writable } from 'node:stream';
import { ERROR_SPECS } from '../core/errors.js';
import type { ErrorCode } from '../core/errors.js';
import type { JsonRpcId } from './json-rpc.js';
import { isPlainObject, serializeError } from './json-rpc.js';
import { LineSplitter } from './line-splitter.js';
import type { McpLog } from './mcp-dispatcher.js';
import { isSupportedProtocolVersion } from './protocol-version.js';
import { API_KEY_HEADER } from './http-routes.js';
import { readLiveStream } from './live-stream-reader.js';
import { MAX_STDIO_MESSAGE_CHARS } from './stdio-server.js';
import { clientWantsDiffs } from './mcp-dispatcher.js';
import { DIFFS_HEADER } from './live-stream.js';
import { MCP_SESSION_HEADER } from './mcp-session-id.js';

export interface RemoteBridgeOptions {
  /** The server's MCP endpoint, e.g. `http://127.0.0.1:8787/mcp`. */
  readonly url: string;
  readonly apiKey: string;
  readonly input: Readable;
  readonly output: Writable;
  readonly log?: McpLog;
  readonly signal?: AbortSignal;
  /** Injected in tests; defaults to the global fetch. */
  readonly fetch?: typeof fetch;
  /**
   * After initialization, also open the server's live stream (`GET /mcp`) and write the
   * notifications it pushes as lines, as an HTTP client would receive them.
   */
  readonly liveDiffs?: boolean;
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

/** The id of a request line, or undefined for a notification, a response or unreadable input. */
function requestIdOf(message: unknown): JsonRpcId | undefined {
  if (!isPlainObject(message) || typeof message.method !== 'string') return undefined;
  const id = message.id;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

export async function runRemoteBridge(options: RemoteBridgeOptions): Promise<void> {
  const { input, output, signal } = options;
  const log = options.log ?? ((): void => undefined);
  const post = options.fetch ?? fetch;
  let protocolVersion: string | undefined;
  let sessionId: string | undefined;
  let wantsDiffs = false;
  // Forwarded in arrival order, as the local stdio server handles them.
  let queue: Promise<void> = Promise.resolve();
  const live = new AbortController();
  let liveStream: Promise<void> | undefined;
  const openLiveStream = (): void => {
    if (options.liveDiffs !== true || liveStream !== undefined) return;
    liveStream = readLiveStream({
      url: options.url,
      headers: () => ({
        [API_KEY_HEADER]: options.apiKey,
        ...(protocolVersion === undefined ? {} : { 'mcp-protocol-version': protocolVersion }),
        ...(sessionId === undefined ? {} : { [MCP_SESSION_HEADER]: sessionId }),
        ...(wantsDiffs ? { [DIFFS_HEADER]: 'on' } : {}),
      }),
      deliver: (message) => {
        if (!output.writableEnded && !output.destroyed) output.write(`${message.replace(/\n/g, ' ')}\n`);
      },
      log,
      signal: live.signal,
      fetch: post,
    });
  };

  const write = (message: unknown): void => {
    if (!output.writableEnded && !output.destroyed) output.write(`${JSON.stringify(message)}\n`);
  };
  const writeError = (id: JsonRpcId | null, code: ErrorCode, message: string): void => {
    output.write(`${serializeError(id, { code: ERROR_SPECS[code].rpcCode, message, data: { code } })}\n`);
  };

  const forward = async (line: string): Promise<void> => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      parsed = undefined;
    }
    const requestId = requestIdOf(parsed);
    const isNotification = isPlainObject(parsed) && typeof parsed.method === 'string' && !Object.hasOwn(parsed, 'id');
    const isInitialize = isPlainObject(parsed) && parsed.method === 'initialize';
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      [API_KEY_HEADER]: options.apiKey,
    };
    if (protocolVersion !== undefined && !isInitialize) headers['mcp-protocol-version'] = protocolVersion;
    if (sessionId !== undefined && !isInitialize) headers[MCP_SESSION_HEADER] = sessionId;
    if (isInitialize && isPlainObject(parsed) && isPlainObject(parsed.params)) wantsDiffs = clientWantsDiffs(parsed.params);
    let response: Response;
    try {
      response = await post(options.url, { method: 'POST', headers, body: line, signal });
    } catch (error) {
      log(`remote ${options.url} unreachable: ${error instanceof Error ? error.message : 'unknown error'}`);
      if (requestId !== undefined) writeError(requestId, 'UNAVAILABLE', `the Hyphae server at ${options.url} is unreachable`);
      return;
    }
    if (response.status === 202) {
      if (isPlainObject(parsed) && parsed.method === 'notifications/initialized') openLiveStream();
      return;
    }
    const text = await response.text();
    let reply: unknown;
    try {
      reply = JSON.parse(text);
    } catch {
      reply = undefined;
    }
    if (isNotification) {
      // A notification never gets a reply, not even a transport error: log it instead.
      if (response.status >= 400) log(`remote ${options.url} refused a notification with HTTP ${response.status}`);
      return;
    }
    if (isPlainObject(reply) && reply.jsonrpc === '2.0') {
      if (isInitialize && isPlainObject(reply.result) && isSupportedProtocolVersion(reply.result.protocolVersion)) {
        protocolVersion = reply.result.protocolVersion;
        sessionId = response.headers.get(MCP_SESSION_HEADER) ?? undefined;
      }
      // Transport-level errors (401, 413…) carry id null; give them back the id the client waits on.
      write(reply.id === null && requestId !== undefined ? { ...reply, id: requestId } : reply);
      return;
    }
    log(`remote ${options.url} answered ${response.status} without a JSON-RPC body`);
    if (requestId !== undefined) writeError(requestId, errorCodeForStatus(response.status), `the Hyphae server answered HTTP ${response.status}`);
  };

  const splitter = new LineSplitter(
    {
      line(text) {
        queue = queue
          .then(() => forward(text))
          .catch((error: unknown) => log(`bridge failed: ${error instanceof Error ? error.message : 'unknown error'}`));
      },
      oversized() {
        queue = queue.then(() => writeError(null, 'TOO_LARGE', `a message is limited to ${MAX_STDIO_MESSAGE_CHARS} characters`));
      },
    },
    MAX_STDIO_MESSAGE_CHARS,
  );

  await new Promise<void>((resolve) => {
    const finish = (): void => {
      input.off('data', onData);
      signal?.removeEventListener('abort', finish);
      splitter.end();
      resolve();
    };
    const onData = (chunk: string | Buffer): void => splitter.push(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
    if (signal?.aborted) return finish();
    input.setEncoding('utf8');
    input.on('data', onData);
    input.once('end', finish);
    input.once('close', finish);
    signal?.addEventListener('abort', finish, { once: true });
  });
  await queue;
  live.abort();
  await liveStream;
}
