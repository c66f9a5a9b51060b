/**
 * The method table of the handshake revisions (MCP 2024-11-05 … 2025-11-25): `initialize`
 * negotiates the revision and the session keeps it; then ping, tools/*, resources/* and prompts/*
 * answer in that revision's shapes.
 */
import type { Principal } from '../../core/principal.js';
import type { MemoryFacade } from '../../service/memory-facade.js';
import { clientWantsDiffs } from '../protocol/diff-extension.js';
import type { JsonObject, JsonRpcId, JsonRpcReply, JsonRpcRequest } from '../protocol/json-rpc.js';
import { RPC_INVALID_PARAMS, RPC_METHOD_NOT_FOUND, namedParams } from '../protocol/json-rpc.js';
import type { ProtocolVersion } from '../protocol/protocol-version.js';
import { negotiateProtocolVersion } from '../protocol/protocol-version.js';
import { methodFailure } from '../protocol/rpc-errors.js';
import { getPrompt, promptsList } from '../features/prompts/catch-up-prompt.js';
import type { ResourceMethods } from '../features/resources/resource-methods.js';
import type { SessionSubscriptions } from '../features/resources/session-subscriptions.js';
import { TOOLS_LIST_RESULT } from '../features/tools/tool-registry.js';
import type { ServerInfo } from './server-description.js';
import { HANDSHAKE_CAPABILITIES, HANDSHAKE_CAPABILITIES_WITH_CHANNEL, instructionsFor } from './server-description.js';
import type { ToolCaller } from './tool-call.js';
import { clipName } from './tool-call.js';

/** Who is calling and which protocol revision governs the reply; stdio updates it on initialize. */
export interface McpSession {
  readonly principal: Principal;
  protocolVersion: ProtocolVersion;
  /** Where resources/subscribe records go (absent: the method is not available on this session). */
  readonly subscriptions?: SessionSubscriptions;
  /** Set on initialize when the client declared the experimental `hyphae/diffs` capability. */
  wantsDiffs?: boolean;
  /** The entry offers Claude Code channel events to this session (declared at initialize). */
  readonly channel?: boolean;
}

export interface HandshakeMethodsOptions {
  readonly facade: MemoryFacade;
  readonly tools: ToolCaller;
  readonly resources: ResourceMethods;
  readonly serverInfo: ServerInfo;
  readonly log: (message: string) => void;
}

export class HandshakeMethods {
  constructor(private readonly options: HandshakeMethodsOptions) {}

  /** One request's reply. */
  async handle(request: JsonRpcRequest, session: McpSession): Promise<JsonRpcReply> {
    const { id } = request;
    const params = namedParams(request.params);
    if (params === null) return { id, error: { code: RPC_INVALID_PARAMS, message: 'Invalid params: params must be an object' } };
    const { facade, resources, tools } = this.options;
    switch (request.method) {
      case 'initialize': {
        const protocolVersion = negotiateProtocolVersion(params.protocolVersion);
        session.protocolVersion = protocolVersion;
        session.wantsDiffs = clientWantsDiffs(params);
        const channel = session.channel === true;
        const capabilities = channel ? HANDSHAKE_CAPABILITIES_WITH_CHANNEL : HANDSHAKE_CAPABILITIES;
        return { id, result: { protocolVersion, capabilities, serverInfo: this.options.serverInfo, instructions: instructionsFor(channel) } };
      }
      case 'ping':
        return { id, result: {} };
      case 'tools/list':
        return { id, result: TOOLS_LIST_RESULT };
      case 'tools/call': {
        const outcome = await tools.call(params, session.principal, session.protocolVersion);
        return outcome.kind === 'result' ? { id, result: outcome.result } : { id, error: outcome.error };
      }
      case 'resources/list':
        return this.answer(id, () => resources.list(params, session.principal, session.protocolVersion));
      case 'resources/templates/list':
        return this.answer(id, async () => resources.templates(session.protocolVersion));
      case 'resources/read':
        return this.answer(id, () => resources.read(params, session.principal));
      case 'prompts/list':
        return this.answer(id, async () => promptsList(session.protocolVersion));
      case 'prompts/get':
        return this.answer(id, () => getPrompt(facade, session.principal, params));
      case 'resources/subscribe':
      case 'resources/unsubscribe': {
        const subscriptions = session.subscriptions;
        if (subscriptions === undefined) break;
        return this.answer(id, () => resources.setSubscription(request.method === 'resources/subscribe', params, subscriptions));
      }
    }
    return { id, error: { code: RPC_METHOD_NOT_FOUND, message: `Method not found: ${clipName(request.method)}` } };
  }

  private async answer(id: JsonRpcId, work: () => Promise<JsonObject>): Promise<JsonRpcReply> {
    try {
      return { id, result: await work() };
    } catch (error) {
      return { id, error: methodFailure(error, this.options.log, 'method') };
    }
  }
}
