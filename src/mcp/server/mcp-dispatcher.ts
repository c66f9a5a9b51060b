/**
 * One classified JSON-RPC message to its outcome, whatever the transport: stdio keeps one session
 * per process, HTTP builds one per request. A request whose `_meta` names its protocol version is
 * of the stateless revision (2026-07-28, stateless-methods.ts); any other is served by the
 * handshake revisions' table (handshake-methods.ts). Replies are values: the transport serialises
 * each once (serializeReply).
 */
import type { IncomingMessage } from '../protocol/incoming-message.js';
import { classifyIncoming } from '../protocol/incoming-message.js';
import type { JsonRpcErrorReply, JsonRpcId, JsonRpcReply } from '../protocol/json-rpc.js';
import { PARSE_ERROR_REPLY, isJsonRpcId, isPlainObject } from '../protocol/json-rpc.js';
import { SERVER_NAME, SERVER_VERSION } from '../protocol/server-version.js';
import type { McpSession } from './handshake-methods.js';
import { HandshakeMethods } from './handshake-methods.js';
import type { ListenFilter } from './listen-filter.js';
import type { McpFeatures } from './mcp-features.js';
import { StatelessMethods } from './stateless-methods.js';

export type McpLog = (message: string) => void;

/**
 * `answered`: a reply to a request (`stateless` with the HTTP status Streamable HTTP gives it in
 * that revision). `rejected`: the input could not be accepted (not JSON, not a valid JSON-RPC
 * message); HTTP answers it with 400. `accepted`: a notification or a client response, which
 * never gets a reply (`cancels`: a notifications/cancelled naming that request id). `listen`: a
 * valid subscriptions/listen, whose push the transport opens.
 */
export type McpOutcome =
  | { readonly kind: 'answered'; readonly reply: JsonRpcReply; readonly stateless?: true; readonly httpStatus?: number }
  | { readonly kind: 'rejected'; readonly reply: JsonRpcErrorReply }
  | { readonly kind: 'accepted'; readonly cancels?: JsonRpcId }
  | { readonly kind: 'listen'; readonly id: JsonRpcId; readonly filter: ListenFilter };

export interface McpDispatcherOptions {
  /** The tools, resources and prompts the method tables serve (features/mcp-features.ts). */
  readonly features: McpFeatures;
  readonly log?: McpLog;
  readonly serverVersion?: string;
  /** The server offers Claude Code channel events (server/discover's instructions; initialize reads the session's flag). */
  readonly channel?: boolean;
}

const ACCEPTED: McpOutcome = { kind: 'accepted' };

/** The request id a notifications/cancelled names, if it names one. */
function cancelledRequestId(method: string, params: unknown): JsonRpcId | undefined {
  if (method !== 'notifications/cancelled' || !isPlainObject(params)) return undefined;
  return isJsonRpcId(params.requestId) ? params.requestId : undefined;
}

export class McpDispatcher {
  private readonly handshake: HandshakeMethods;
  /** The stateless revision's methods (per-request `_meta`); its transports also end listen pushes with it. */
  readonly stateless: StatelessMethods;

  constructor(options: McpDispatcherOptions) {
    const log = options.log ?? ((): void => undefined);
    const methods = {
      features: options.features,
      serverInfo: { name: SERVER_NAME, version: options.serverVersion ?? SERVER_VERSION },
      log,
      channel: options.channel === true,
    };
    this.handshake = new HandshakeMethods(methods);
    this.stateless = new StatelessMethods(methods);
  }

  /** One line or body of text: parse, classify, then dispatch. */
  async handleText(text: string, session: McpSession): Promise<McpOutcome> {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return { kind: 'rejected', reply: PARSE_ERROR_REPLY };
    }
    return this.handle(classifyIncoming(value), session);
  }

  /** One already parsed JSON value. */
  async handleValue(value: unknown, session: McpSession): Promise<McpOutcome> {
    return this.handle(classifyIncoming(value), session);
  }

  /** One message its transport already classified (HTTP reads the classification before dispatch too). */
  async handle(incoming: IncomingMessage, session: McpSession): Promise<McpOutcome> {
    const { message } = incoming;
    switch (message.kind) {
      case 'invalid':
        return { kind: 'rejected', reply: { id: message.id, error: message.error } };
      case 'notification': {
        const cancels = cancelledRequestId(message.method, message.params);
        return cancels === undefined ? ACCEPTED : { kind: 'accepted', cancels };
      }
      case 'response':
        return ACCEPTED;
      case 'request':
        if (incoming.stateless) return this.stateless.handle(message, session.principal);
        return { kind: 'answered', reply: await this.handshake.handle(message, session) };
    }
  }
}
