/**
 * What the method tables need from the features — tools, resources, prompts and what the server
 * says about itself — as interfaces the dispatcher is handed (features/mcp-features.ts builds them),
 * so the server layer never imports a feature.
 */
import type { Principal } from '../../core/principal.js';
import type { JsonObject, JsonRpcErrorObject, JsonRpcParams, JsonRpcResult } from '../protocol/json-rpc.js';
import type { ProtocolVersion } from '../protocol/protocol-version.js';
import type { SessionSubscriptions } from './handshake-methods.js';
import type { ListenFilter } from './listen-filter.js';

export type ToolCallOutcome = { readonly kind: 'result'; readonly result: JsonObject } | { readonly kind: 'error'; readonly error: JsonRpcErrorObject };

export interface McpToolFeature {
  /** The tools/list result, made once. */
  readonly listResult: JsonRpcResult;
  /** `contentVersion` decides how schema failures are reported and whether resource_link blocks follow. */
  call(params: JsonRpcParams, principal: Principal, contentVersion: ProtocolVersion): Promise<ToolCallOutcome>;
}

/** Each method throws an RpcMethodError for its own refusals (invalid params, resource not found). */
export interface McpResourceFeature {
  list(params: JsonRpcParams, principal: Principal, version: ProtocolVersion): Promise<JsonObject>;
  templates(version: ProtocolVersion): JsonObject;
  read(params: JsonRpcParams, principal: Principal): Promise<JsonObject>;
  /** The read names one cell, whose content changes rarely (the stateless revision lets clients cache it longer). */
  readsOneCell(params: JsonRpcParams): boolean;
  setSubscription(subscribe: boolean, params: JsonRpcParams, subscriptions: SessionSubscriptions): Promise<JsonObject>;
  /** What a subscriptions/listen asked for and is honored. */
  listenFilter(params: JsonRpcParams, principal: Principal): Promise<ListenFilter>;
}

export interface McpPromptFeature {
  list(version: ProtocolVersion): JsonObject;
  get(params: JsonRpcParams, principal: Principal): Promise<JsonObject>;
}

/** What initialize and server/discover say besides the server's name and version. */
export interface McpServerDescription {
  /** `channel`: the entry offers Claude Code channel events. */
  instructions(channel: boolean): string;
  handshakeCapabilities(channel: boolean): JsonObject;
  readonly statelessCapabilities: JsonObject;
}

export interface McpFeatures {
  readonly tools: McpToolFeature;
  readonly resources: McpResourceFeature;
  readonly prompts: McpPromptFeature;
  readonly description: McpServerDescription;
}
