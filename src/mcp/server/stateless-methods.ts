/**
 * The method table of the stateless revision (MCP 2026-07-28): every request is served on its own
 * from its `_meta`, with no initialize and no session. Tools, resources and prompts run the very
 * code the handshake revisions run (with 2025-11-25 content shapes); results add
 * `resultType: "complete"` and `_meta` serverInfo, list/read results add `ttlMs` and `cacheScope`.
 * `initialize`, `ping` and `resources/(un)subscribe` belong to the handshake revisions and are
 * unknown here; `subscriptions/listen` is validated here and pushed by the transport.
 */
import type { Principal } from '../../core/principal.js';
import type { JsonObject, JsonRpcErrorObject, JsonRpcId, JsonRpcParams, JsonRpcReply, JsonRpcRequest, JsonRpcResult } from '../protocol/json-rpc.js';
import { PreparedJson, RPC_INVALID_PARAMS, RPC_METHOD_NOT_FOUND, serializeReply, withResultMembers } from '../protocol/json-rpc.js';
import { ADVERTISED_PROTOCOL_VERSIONS, STATELESS_CONTENT_VERSION } from '../protocol/protocol-version.js';
import { RPC_RESOURCE_NOT_FOUND, clipName, methodFailure } from '../protocol/rpc-errors.js';
import type { ServerInfo } from '../protocol/server-version.js';
import type { StatelessRejection } from '../protocol/stateless-meta.js';
import { META_SERVER_INFO, META_SUBSCRIPTION_ID, readStatelessMeta } from '../protocol/stateless-meta.js';
import type { ListenFilter } from './listen-filter.js';
import type { McpFeatures } from './mcp-features.js';

/** How long a client may cache a result that changes only with a new server version (tools, templates, prompts). */
export const STATIC_LIST_TTL_MS = 60 * 60 * 1000;
/** A cell's content changes rarely (an update, a promotion, a delete); a subscriber hears of each. */
export const CELL_READ_TTL_MS = 60 * 1000;
/** The code FORBIDDEN takes in this revision, which may not emit -32002 (resource not found until 2025-11-25). */
export const STATELESS_FORBIDDEN_CODE = -31002;

export interface CacheHint {
  readonly ttlMs: number;
  readonly cacheScope: 'public' | 'private';
}

const PUBLIC_STATIC: CacheHint = { ttlMs: STATIC_LIST_TTL_MS, cacheScope: 'public' };
/** resources/list and the inbox change whenever a diff lands: fresh each time, for this key only. */
const PRIVATE_LIVE: CacheHint = { ttlMs: 0, cacheScope: 'private' };

export type StatelessOutcome =
  | { readonly kind: 'answered'; readonly stateless: true; readonly httpStatus: number; readonly reply: JsonRpcReply }
  | { readonly kind: 'listen'; readonly id: JsonRpcId; readonly filter: ListenFilter };

export interface StatelessMethodsOptions {
  readonly features: McpFeatures;
  readonly serverInfo: ServerInfo;
  readonly log: (message: string) => void;
  /** The server offers Claude Code channel events on its handshake entries: discover's instructions say what they are. */
  readonly channel?: boolean;
}

/** HTTP status of an error of this revision: Streamable HTTP gives 404 to an unknown method, 200 to the rest. */
function statusOf(error: JsonRpcErrorObject): number {
  return error.code === RPC_METHOD_NOT_FOUND ? 404 : 200;
}

/** This revision's wire form of a handshake-revision error: -32002 is not emitted in it. */
export function statelessError(error: JsonRpcErrorObject): JsonRpcErrorObject {
  if (error.code !== RPC_RESOURCE_NOT_FOUND) return error;
  if (error.data?.code === 'NOT_FOUND') return { ...error, code: RPC_INVALID_PARAMS };
  return { ...error, code: STATELESS_FORBIDDEN_CODE };
}

export class StatelessMethods {
  /** What every complete result ends with: its resultType and the server's identity (its JSON made once). */
  private readonly completeMembers: JsonObject;

  constructor(private readonly options: StatelessMethodsOptions) {
    this.completeMembers = { resultType: 'complete', _meta: new PreparedJson(JSON.stringify({ [META_SERVER_INFO]: options.serverInfo })) };
  }

  /** The closing result of a listen stream (graceful end, e.g. shutdown), tagged with its subscription id, as its wire text. */
  listenClosedResult(id: JsonRpcId): string {
    return serializeReply({ id, result: { resultType: 'complete', _meta: { [META_SERVER_INFO]: this.options.serverInfo, [META_SUBSCRIPTION_ID]: id } } });
  }

  /** A request whose `_meta` declared this revision (so its params are an object). */
  async handle(request: JsonRpcRequest, principal: Principal): Promise<StatelessOutcome> {
    const { id, method } = request;
    const params = request.params as JsonRpcParams;
    const checked = readStatelessMeta(params);
    if (!checked.ok) return this.reject(id, checked);
    const { tools, resources, prompts, description } = this.options.features;
    switch (method) {
      case 'server/discover':
        return this.result(id, {
          supportedVersions: ADVERTISED_PROTOCOL_VERSIONS,
          capabilities: description.statelessCapabilities,
          instructions: description.instructions(this.options.channel === true),
        }, PUBLIC_STATIC);
      case 'tools/list':
        return this.result(id, tools.listResult, PUBLIC_STATIC);
      case 'tools/call': {
        const outcome = await tools.call(params, principal, STATELESS_CONTENT_VERSION);
        return outcome.kind === 'result' ? this.result(id, outcome.result) : this.error(id, outcome.error);
      }
      case 'resources/list':
        return this.run(id, () => resources.list(params, principal, STATELESS_CONTENT_VERSION), PRIVATE_LIVE);
      case 'resources/templates/list':
        return this.run(id, async () => resources.templates(STATELESS_CONTENT_VERSION), PUBLIC_STATIC);
      case 'resources/read': {
        const hint: CacheHint = resources.readsOneCell(params) ? { ttlMs: CELL_READ_TTL_MS, cacheScope: 'private' } : PRIVATE_LIVE;
        return this.run(id, () => resources.read(params, principal), hint);
      }
      case 'prompts/list':
        return this.run(id, async () => prompts.list(STATELESS_CONTENT_VERSION), PUBLIC_STATIC);
      case 'prompts/get':
        return this.run(id, () => prompts.get(params, principal));
      case 'subscriptions/listen':
        return this.listen(id, params, principal);
    }
    return this.error(id, { code: RPC_METHOD_NOT_FOUND, message: `Method not found: ${clipName(method)}` });
  }

  private reject(id: JsonRpcId, rejection: StatelessRejection): StatelessOutcome {
    return { kind: 'answered', stateless: true, httpStatus: rejection.httpStatus, reply: { id, error: rejection.error } };
  }

  private result(id: JsonRpcId, result: JsonRpcResult, cache?: CacheHint): StatelessOutcome {
    const members = cache === undefined ? this.completeMembers : Object.assign({ ttlMs: cache.ttlMs, cacheScope: cache.cacheScope }, this.completeMembers);
    return { kind: 'answered', stateless: true, httpStatus: 200, reply: { id, result: withResultMembers(result, members) } };
  }

  private error(id: JsonRpcId, error: JsonRpcErrorObject): StatelessOutcome {
    const stateless = statelessError(error);
    return { kind: 'answered', stateless: true, httpStatus: statusOf(stateless), reply: { id, error: stateless } };
  }

  private async run(id: JsonRpcId, work: () => Promise<JsonObject>, cache?: CacheHint): Promise<StatelessOutcome> {
    try {
      return this.result(id, await work(), cache);
    } catch (error) {
      return this.error(id, methodFailure(error, this.options.log, 'method'));
    }
  }

  private async listen(id: JsonRpcId, params: JsonRpcParams, principal: Principal): Promise<StatelessOutcome> {
    try {
      return { kind: 'listen', id, filter: await this.options.features.resources.listenFilter(params, principal) };
    } catch (error) {
      return this.error(id, methodFailure(error, this.options.log, 'subscriptions/listen'));
    }
  }
}
