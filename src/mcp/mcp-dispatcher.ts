/**
 * The MCP method table over one parsed JSON-RPC message: initialize, ping, tools/list and
 * tools/call. Transport-agnostic: stdio keeps one session per process, HTTP builds one per request.
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
import { negotiateProtocolVersion, reportsSchemaErrorsAsToolResults } from './protocol-version.js';
import { invalidArgumentsError, invalidArgumentsResultJson, toFieldIssues, toRpcError } from './rpc-errors.js';
import { getPrompt, promptsList } from './prompts/catch-up-prompt.js';
import { DIFFS_CAPABILITY } from './resources/resource-notifications.js';
import { ResourceMethodError, ResourceMethods } from './resources/resource-methods.js';
import type { SessionSubscriptions } from './resources/session-subscriptions.js';
import { resourceLinkBlocks } from './resources/resource-wire.js';
import { SERVER_VERSION } from './server-version.js';
import { TOOLS_LIST_RESULT_JSON, findTool } from './tools/tool-registry.js';

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
 * `answered`: a reply to a request. `rejected`: the input could not be accepted (not JSON, not a
 * valid JSON-RPC message); HTTP answers it with 400. `accepted`: a notification or a client
 * response, which never gets a reply.
 */
export type McpOutcome =
  | { readonly kind: 'answered'; readonly body: string }
  | { readonly kind: 'rejected'; readonly body: string }
  | { readonly kind: 'accepted' };

/** Where tool calls are counted and timed (the process metrics); outcome `invalid` = schema failure. */
export interface McpCallObserver {
  observeMcpCall(tool: string, outcome: 'ok' | 'error' | 'invalid', seconds: number): void;
}

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

/** Whether an initialize request's client capabilities ask for notifications/hyphae/diff. */
export function clientWantsDiffs(params: Readonly<Record<string, unknown>>): boolean {
  const capabilities = params.capabilities;
  return isPlainObject(capabilities) && isPlainObject(capabilities.experimental) && capabilities.experimental[DIFFS_CAPABILITY] !== undefined;
}

const ACCEPTED: McpOutcome = { kind: 'accepted' };
const MAX_ECHOED_NAME = 64;

function clip(text: string): string {
  return text.length > MAX_ECHOED_NAME ? `${text.slice(0, MAX_ECHOED_NAME)}…` : text;
}

function invalidParams(message: string): JsonRpcErrorObject {
  return { code: RPC_INVALID_PARAMS, message };
}

export class McpDispatcher {
  private readonly facade: MemoryFacade;
  private readonly log: McpLog;
  private readonly observer: McpCallObserver | undefined;
  private readonly initializeResultFor: (version: ProtocolVersion) => string;
  private readonly resources: ResourceMethods;

  constructor(options: McpDispatcherOptions) {
    this.facade = options.facade;
    this.log = options.log ?? ((): void => undefined);
    this.observer = options.observer;
    this.resources = new ResourceMethods(options.facade);
    const serverInfo = { name: 'hyphae', version: options.serverVersion ?? SERVER_VERSION };
    this.initializeResultFor = (protocolVersion): string =>
      JSON.stringify({ protocolVersion, capabilities: SERVER_CAPABILITIES, serverInfo, instructions: INSTRUCTIONS });
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
      case 'notification':
      case 'response':
        return ACCEPTED;
      case 'request':
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
    return serializeError(request.id, { code: RPC_METHOD_NOT_FOUND, message: `Method not found: ${clip(request.method)}` });
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
    const name = params.name;
    if (typeof name !== 'string') return serializeError(id, invalidParams('Invalid params: name must be the name of a tool'));
    const tool = findTool(name);
    if (tool === undefined) return serializeError(id, invalidParams(`Unknown tool: ${clip(name)}`));
    const args = params.arguments === undefined ? {} : params.arguments;
    if (!isPlainObject(args)) return serializeError(id, invalidParams('Invalid params: arguments must be an object'));

    const started = performance.now();
    const observe = (outcome: 'ok' | 'error' | 'invalid'): void =>
      this.observer?.observeMcpCall(tool.name, outcome, (performance.now() - started) / 1000);
    const parsed = tool.input.safeParse(args);
    if (!parsed.success) {
      observe('invalid');
      const issues = toFieldIssues(parsed.error.issues);
      return reportsSchemaErrorsAsToolResults(session.protocolVersion)
        ? serializeResult(id, invalidArgumentsResultJson(tool.name, issues))
        : serializeError(id, invalidArgumentsError(tool.name, issues));
    }

    let outcome: Awaited<ReturnType<typeof tool.run>>;
    try {
      outcome = await tool.run(this.facade, session.principal, parsed.data);
    } catch (error) {
      observe('error');
      const rpcError = toRpcError(error);
      if (rpcError.message === 'internal error') this.log(`tool ${tool.name} failed: ${describeLoggableError(error)}`);
      return serializeError(id, rpcError);
    }
    observe('ok');
    const text = JSON.stringify(outcome.structured);
    // The text block stays first; links follow for the revisions that have resource_link.
    const links = resourceLinkBlocks(outcome.links, session.protocolVersion).map((block) => `,${JSON.stringify(block)}`).join('');
    return serializeResult(id, `{"content":[{"type":"text","text":${JSON.stringify(text)}}${links}],"structuredContent":${text},"isError":false}`);
  }
}

