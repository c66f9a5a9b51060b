/**
 * The MCP method table over one parsed JSON-RPC message: initialize, ping, tools/list and
 * tools/call. Transport-agnostic: stdio keeps one session per process, HTTP builds one per request.
 * A request whose `_meta` names its protocol version is of the modern era (2026-07-28) and goes to
 * src/mcp/modern/modern-methods.ts; everything else is the legacy era, served as before.
 */
import { describeLoggableError } from '../core/loggable-error.js';
import type { Principal } from '../core/principal.js';
import type { MemoryFacade } from '../service/memory-facade.js';
import type { JsonRpcErrorObject, JsonRpcId, JsonRpcRequest } from './json-rpc.js';
import {
  RPC_INVALID_PARAMS,
  RPC_METHOD_NOT_FOUND,
  classifyMessage,
  isPlainObject,
  namedParams,
  parseErrorReply,
  serializeError,
  serializeResult,
} from './json-rpc.js';
import type { ProtocolVersion } from './protocol-version.js';
import { negotiateProtocolVersion } from './protocol-version.js';
import { toRpcError } from './rpc-errors.js';
import { getPrompt, promptsList } from './prompts/catch-up-prompt.js';
import { DIFFS_CAPABILITY } from './resources/resource-notifications.js';
import { ResourceMethodError, ResourceMethods } from './resources/resource-methods.js';
import type { SessionSubscriptions } from './resources/session-subscriptions.js';
import { SERVER_VERSION } from './server-version.js';
import { TOOLS_LIST_RESULT_JSON } from './tools/tool-registry.js';
import type { McpCallObserver } from './tool-call.js';
import { ToolCaller, clipName } from './tool-call.js';
import type { ListenFilter } from './modern/modern-methods.js';
import { ModernMethods } from './modern/modern-methods.js';
import { declaresModernMeta } from './modern/modern-meta.js';

export type { McpCallObserver } from './tool-call.js';
export type { ListenFilter } from './modern/modern-methods.js';

/** Who is calling and which protocol revision governs the reply; stdio updates it on initialize. */
export interface McpSession {
  readonly principal: Principal;
  protocolVersion: ProtocolVersion;
  /** Where resources/subscribe records go (absent: the method is not available on this session). */
  readonly subscriptions?: SessionSubscriptions;
  /** Set on initialize when the client declared the experimental `hyphae/diffs` capability. */
  wantsDiffs?: boolean;
}

export type McpLog = (message: string) => void;

/**
 * `answered`: a reply to a request (`era: 'modern'` with the HTTP status the modern transport
 * gives it). `rejected`: the input could not be accepted (not JSON, not a valid JSON-RPC
 * message); HTTP answers it with 400. `accepted`: a notification or a client response, which
 * never gets a reply (`cancels`: a notifications/cancelled naming that request id). `listen`: a
 * valid modern subscriptions/listen, whose stream the transport opens.
 */
export type McpOutcome =
  | { readonly kind: 'answered'; readonly body: string; readonly era?: 'modern'; readonly httpStatus?: number }
  | { readonly kind: 'rejected'; readonly body: string }
  | { readonly kind: 'accepted'; readonly cancels?: JsonRpcId }
  | { readonly kind: 'listen'; readonly id: JsonRpcId; readonly filter: ListenFilter };

export interface McpDispatcherOptions {
  readonly facade: MemoryFacade;
  readonly log?: McpLog;
  readonly serverVersion?: string;
  readonly observer?: McpCallObserver;
}

const INSTRUCTIONS =
  'Hyphae is shared memory for agents. Store what others should know (store), recall by meaning (recall, query), open a ' +
  'session per task (open_session, close_session), declare standing interests (place_beacon) and read what was gossiped to ' +
  'you (drain_inbox, pull_diffs). Results name cells by resource_link: read a cell\'s content as the resource ' +
  'hyphae://cells/{node_id}; hyphae://inbox shows what reached you and is not drained yet (subscribe to it to hear when a diff lands), ' +
  'and the catch_up prompt hands you those memories in full. Your identity comes from your API key; never pass it in arguments.';

const SERVER_CAPABILITIES = {
  tools: { listChanged: false },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: false },
  experimental: { [DIFFS_CAPABILITY]: {} },
};

/**
 * What `server/discover` advertises: resource updates and list changes through
 * subscriptions/listen; the hyphae/diffs extension is a legacy-era stream (GET /mcp, stdio
 * after initialize) and is not offered to modern clients.
 */
const MODERN_CAPABILITIES = {
  tools: { listChanged: false },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: false },
};

/** Whether an initialize request's client capabilities ask for notifications/hyphae/diff. */
export function clientWantsDiffs(params: Readonly<Record<string, unknown>>): boolean {
  const capabilities = params.capabilities;
  return isPlainObject(capabilities) && isPlainObject(capabilities.experimental) && capabilities.experimental[DIFFS_CAPABILITY] !== undefined;
}

const ACCEPTED: McpOutcome = { kind: 'accepted' };

/** The request id a notifications/cancelled names, if it names one. */
function cancelledRequestId(method: string, params: unknown): JsonRpcId | undefined {
  if (method !== 'notifications/cancelled' || !isPlainObject(params)) return undefined;
  const id = params.requestId;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : undefined;
}

function invalidParams(message: string): JsonRpcErrorObject {
  return { code: RPC_INVALID_PARAMS, message };
}

export class McpDispatcher {
  private readonly facade: MemoryFacade;
  private readonly log: McpLog;
  private readonly initializeResultFor: (version: ProtocolVersion) => string;
  private readonly resources: ResourceMethods;
  private readonly tools: ToolCaller;
  /** The modern era's methods (stateless, per-request `_meta`). */
  readonly modern: ModernMethods;

  constructor(options: McpDispatcherOptions) {
    this.facade = options.facade;
    this.log = options.log ?? ((): void => undefined);
    this.resources = new ResourceMethods(options.facade);
    this.tools = new ToolCaller(options.facade, this.log, options.observer);
    const serverInfo = { name: 'hyphae', version: options.serverVersion ?? SERVER_VERSION };
    this.initializeResultFor = (protocolVersion): string =>
      JSON.stringify({ protocolVersion, capabilities: SERVER_CAPABILITIES, serverInfo, instructions: INSTRUCTIONS });
    this.modern = new ModernMethods({
      facade: options.facade,
      tools: this.tools,
      resources: this.resources,
      serverInfo,
      capabilities: MODERN_CAPABILITIES,
      instructions: INSTRUCTIONS,
      log: this.log,
    });
  }

  /** One line or body of text: parse, then dispatch. */
  async handleText(text: string, session: McpSession): Promise<McpOutcome> {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return { kind: 'rejected', body: parseErrorReply() };
    }
    return this.handleValue(value, session);
  }

  /** One already parsed JSON value. */
  async handleValue(value: unknown, session: McpSession): Promise<McpOutcome> {
    const message = classifyMessage(value);
    switch (message.kind) {
      case 'invalid':
        return { kind: 'rejected', body: serializeError(message.id, message.error) };
      case 'notification': {
        const cancels = cancelledRequestId(message.method, message.params);
        return cancels === undefined ? ACCEPTED : { kind: 'accepted', cancels };
      }
      case 'response':
        return ACCEPTED;
      case 'request':
        if (declaresModernMeta(message.params)) {
          return this.modern.handle(message.id, message.method, message.params as Readonly<Record<string, unknown>>, session.principal);
        }
        return { kind: 'answered', body: await this.handleRequest(message, session) };
    }
  }

  private async handleRequest(request: JsonRpcRequest, session: McpSession): Promise<string> {
    const params = namedParams(request.params);
    if (params === null) return serializeError(request.id, invalidParams('Invalid params: params must be an object'));
    switch (request.method) {
      case 'initialize': {
        const version = negotiateProtocolVersion(params.protocolVersion);
        session.protocolVersion = version;
        session.wantsDiffs = clientWantsDiffs(params);
        return serializeResult(request.id, this.initializeResultFor(version));
      }
      case 'ping':
        return serializeResult(request.id, '{}');
      case 'tools/list':
        return serializeResult(request.id, TOOLS_LIST_RESULT_JSON);
      case 'tools/call':
        return this.callTool(request.id, params, session);
      case 'resources/list':
        return this.answer(request.id, () => this.resources.list(params, session.principal, session.protocolVersion));
      case 'resources/templates/list':
        return this.answer(request.id, async () => this.resources.templates(session.protocolVersion));
      case 'resources/read':
        return this.answer(request.id, () => this.resources.read(params, session.principal));
      case 'prompts/list':
        return this.answer(request.id, async () => promptsList(session.protocolVersion));
      case 'prompts/get':
        return this.answer(request.id, () => getPrompt(this.facade, session.principal, params));
      case 'resources/subscribe':
      case 'resources/unsubscribe': {
        const subscriptions = session.subscriptions;
        if (subscriptions === undefined) break;
        return this.answer(request.id, () => this.resources.setSubscription(request.method === 'resources/subscribe', params, subscriptions));
      }
    }
    return serializeError(request.id, { code: RPC_METHOD_NOT_FOUND, message: `Method not found: ${clipName(request.method)}` });
  }

  /** Runs a method whose failures are JSON-RPC error objects (ResourceMethodError) or facade errors. */
  private async answer(id: JsonRpcId, work: () => Promise<unknown>): Promise<string> {
    try {
      return serializeResult(id, JSON.stringify(await work()));
    } catch (error) {
      if (error instanceof ResourceMethodError) return serializeError(id, error.rpcError);
      const rpcError = toRpcError(error);
      if (rpcError.message === 'internal error') this.log(`method failed: ${describeLoggableError(error)}`);
      return serializeError(id, rpcError);
    }
  }

  private async callTool(id: JsonRpcId, params: Readonly<Record<string, unknown>>, session: McpSession): Promise<string> {
    const outcome = await this.tools.call(params, session.principal, session.protocolVersion);
    return outcome.kind === 'result' ? serializeResult(id, outcome.json) : serializeError(id, outcome.error);
  }
}
