/**
 * The method table of the handshake revisions (MCP 2024-11-05 … 2025-11-25): `initialize`
 * negotiates the revision and the session keeps it; then ping, tools/*, resources/* and prompts/*
 * answer in that revision's shapes.
 */
import type { Principal } from '../../core/principal.js';
import { clientWantsDiffs } from '../protocol/diff-extension.js';
import type { JsonObject, JsonRpcId, JsonRpcReply, JsonRpcRequest } from '../protocol/json-rpc.js';
import { RPC_INVALID_PARAMS, RPC_METHOD_NOT_FOUND, namedParams } from '../protocol/json-rpc.js';
import type { ProtocolVersion } from '../protocol/protocol-version.js';
import { negotiateProtocolVersion } from '../protocol/protocol-version.js';
import { clipName, methodFailure } from '../protocol/rpc-errors.js';
import type { ServerInfo } from '../protocol/server-version.js';
import type { McpFeatures } from './mcp-features.js';

/**
 * Where one MCP session's resource subscriptions are kept (features/resources/session-subscriptions.ts:
 * in memory over stdio, stored through the facade over HTTP), by subscription key.
 */
export interface SessionSubscriptions {
  add(resource: string): Promise<void>;
  remove(resource: string): Promise<void>;
  current(): Promise<ReadonlySet<string>>;
}

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
  readonly features: McpFeatures;
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
    const { tools, resources, prompts, description } = this.options.features;
    switch (request.method) {
      case 'initialize': {
        const protocolVersion = negotiateProtocolVersion(params.protocolVersion);
        session.protocolVersion = protocolVersion;
        session.wantsDiffs = clientWantsDiffs(params);
        const channel = session.channel === true;
        const capabilities = description.handshakeCapabilities(channel);
        return { id, result: { protocolVersion, capabilities, serverInfo: this.options.serverInfo, instructions: description.instructions(channel) } };
      }
      case 'ping':
        return { id, result: {} };
      case 'tools/list':
        return { id, result: tools.listResult };
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
        return this.answer(id, async () => prompts.list(session.protocolVersion));
      case 'prompts/get':
        return this.answer(id, () => prompts.get(params, session.principal));
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
