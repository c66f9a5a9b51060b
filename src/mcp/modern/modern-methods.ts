/**
 * The method table of the modern era (MCP 2026-07-28): every request is served on its own from
 * its `_meta`, with no initialize and no session. Tools, resources and prompts run the very code
 * the legacy era runs (with 2025-11-25 content shapes); results add `resultType: "complete"` and
 * `_meta` serverInfo, list/read results add `ttlMs` and `cacheScope`. `initialize`, `ping` and
 * `resources/(un)subscribe` belong to the legacy era and are unknown here; `subscriptions/listen`
 * is validated here and streamed by the transport.
 */
import { describeLoggableError } from '../../core/loggable-error.js';
import { isHyphaeError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import type { MemoryFacade } from '../../service/memory-facade.js';
import type { JsonRpcErrorObject, JsonRpcId, JsonRpcParams } from '../json-rpc.js';
import { RPC_INVALID_PARAMS, RPC_METHOD_NOT_FOUND, isPlainObject, serializeError, serializeResult } from '../json-rpc.js';
import { ADVERTISED_PROTOCOL_VERSIONS, MODERN_CONTENT_VERSION } from '../protocol-version.js';
import { toRpcError } from '../rpc-errors.js';
import { getPrompt, promptsList } from '../prompts/catch-up-prompt.js';
import { RPC_RESOURCE_NOT_FOUND, ResourceMethodError } from '../resources/resource-methods.js';
import type { ResourceMethods } from '../resources/resource-methods.js';
import { cellSubscriptionKey } from '../resources/resource-notifications.js';
import { parseResourceUri } from '../resources/resource-uris.js';
import type { ToolCaller } from '../tool-call.js';
import { clipName } from '../tool-call.js';
import { TOOLS_LIST_RESULT_JSON } from '../tools/tool-registry.js';
import type { ModernRejection } from './modern-meta.js';
import { META_SERVER_INFO, readModernMeta } from './modern-meta.js';

/** How long a client may cache a result that changes only with a new server version (tools, templates, prompts). */
export const STATIC_LIST_TTL_MS = 60 * 60 * 1000;
/** A cell's content changes rarely (an update, a promotion, a delete); a subscriber hears of each. */
export const CELL_READ_TTL_MS = 60 * 1000;
/** At most this many URIs in one subscriptions/listen filter. */
export const MAX_LISTEN_RESOURCES = 64;
/** The code FORBIDDEN takes in the modern era, which may not emit -32002 (resource not found until 2025-11-25). */
export const MODERN_FORBIDDEN_CODE = -31002;

export interface CacheHint {
  readonly ttlMs: number;
  readonly cacheScope: 'public' | 'private';
}

const PUBLIC_STATIC: CacheHint = { ttlMs: STATIC_LIST_TTL_MS, cacheScope: 'public' };
/** resources/list and the inbox change whenever a diff lands: fresh each time, for this key only. */
const PRIVATE_LIVE: CacheHint = { ttlMs: 0, cacheScope: 'private' };

/** What a subscriptions/listen request asked for and the server agreed to honor. */
export interface ListenFilter {
  readonly resourcesListChanged: boolean;
  /** Subscription key (`inbox`, `cell:<id>`) → the URI as the client wrote it. */
  readonly resources: ReadonlyMap<string, string>;
  /** The acknowledged filter, as sent in notifications/subscriptions/acknowledged. */
  readonly acknowledged: Readonly<Record<string, unknown>>;
}

export type ModernOutcome =
  | { readonly kind: 'answered'; readonly era: 'modern'; readonly httpStatus: number; readonly body: string }
  | { readonly kind: 'listen'; readonly id: JsonRpcId; readonly filter: ListenFilter };

export interface ModernMethodsOptions {
  readonly facade: MemoryFacade;
  readonly tools: ToolCaller;
  readonly resources: ResourceMethods;
  readonly serverInfo: { readonly name: string; readonly version: string };
  readonly capabilities: Readonly<Record<string, unknown>>;
  readonly instructions: string;
  readonly log: (message: string) => void;
}

class ListenParamsError extends Error {}

function listenParamsError(message: string): ListenParamsError {
  return new ListenParamsError(`Invalid params: ${message}`);
}

/** A `{...}` result's JSON text with extra members appended (the result is built once, then extended). */
function extendJson(resultJson: string, extraJson: string): string {
  const inner = resultJson.trim();
  return inner === '{}' ? `{${extraJson}}` : `${inner.slice(0, -1)},${extraJson}}`;
}

/** HTTP status of a modern error: the transport page gives 400 to malformed metadata and 404 to an unknown method. */
function statusOf(error: JsonRpcErrorObject, metadata: boolean): number {
  if (error.code === RPC_METHOD_NOT_FOUND) return 404;
  return metadata ? 400 : 200;
}

/** The modern wire form of a legacy-era error: -32002 is not emitted in this revision. */
export function modernError(error: JsonRpcErrorObject): JsonRpcErrorObject {
  if (error.code !== RPC_RESOURCE_NOT_FOUND) return error;
  const data = isPlainObject(error.data) ? error.data : {};
  if (data.code === 'NOT_FOUND') return { ...error, code: RPC_INVALID_PARAMS };
  return { ...error, code: MODERN_FORBIDDEN_CODE };
}

export class ModernMethods {
  private readonly completeMeta: string;

  constructor(private readonly options: ModernMethodsOptions) {
    this.completeMeta = `"resultType":"complete","_meta":${JSON.stringify({ [META_SERVER_INFO]: options.serverInfo })}`;
  }

  /** The closing result of a listen stream (graceful end, e.g. shutdown), tagged with its subscription id. */
  listenClosedResult(id: JsonRpcId, subscriptionIdKey: string): string {
    return serializeResult(id, JSON.stringify({ resultType: 'complete', _meta: { [META_SERVER_INFO]: this.options.serverInfo, [subscriptionIdKey]: id } }));
  }

  async handle(id: JsonRpcId, method: string, params: JsonRpcParams, principal: Principal): Promise<ModernOutcome> {
    const checked = readModernMeta(params);
    if (!checked.ok) return this.reject(id, checked);
    switch (method) {
      case 'server/discover':
        return this.result(id, JSON.stringify({
          supportedVersions: ADVERTISED_PROTOCOL_VERSIONS,
          capabilities: this.options.capabilities,
          instructions: this.options.instructions,
        }), PUBLIC_STATIC);
      case 'tools/list':
        return this.result(id, TOOLS_LIST_RESULT_JSON, PUBLIC_STATIC);
      case 'tools/call': {
        const outcome = await this.options.tools.call(params, principal, MODERN_CONTENT_VERSION);
        return outcome.kind === 'result' ? this.result(id, outcome.json) : this.error(id, outcome.error);
      }
      case 'resources/list':
        return this.run(id, () => this.options.resources.list(params, principal, MODERN_CONTENT_VERSION), PRIVATE_LIVE);
      case 'resources/templates/list':
        return this.run(id, async () => this.options.resources.templates(MODERN_CONTENT_VERSION), PUBLIC_STATIC);
      case 'resources/read': {
        const target = typeof params.uri === 'string' ? parseResourceUri(params.uri) : null;
        const hint: CacheHint = target?.kind === 'cell' ? { ttlMs: CELL_READ_TTL_MS, cacheScope: 'private' } : PRIVATE_LIVE;
        return this.run(id, () => this.options.resources.read(params, principal), hint);
      }
      case 'prompts/list':
        return this.run(id, async () => promptsList(MODERN_CONTENT_VERSION), PUBLIC_STATIC);
      case 'prompts/get':
        return this.run(id, () => getPrompt(this.options.facade, principal, params));
      case 'subscriptions/listen':
        return this.listen(id, params, principal);
    }
    return this.error(id, { code: RPC_METHOD_NOT_FOUND, message: `Method not found: ${clipName(method)}` });
  }

  private reject(id: JsonRpcId, rejection: ModernRejection): ModernOutcome {
    return { kind: 'answered', era: 'modern', httpStatus: rejection.httpStatus, body: serializeError(id, rejection.error) };
  }

  private result(id: JsonRpcId, resultJson: string, cache?: CacheHint): ModernOutcome {
    const cached = cache === undefined ? '' : `"ttlMs":${cache.ttlMs},"cacheScope":${JSON.stringify(cache.cacheScope)},`;
    return { kind: 'answered', era: 'modern', httpStatus: 200, body: serializeResult(id, extendJson(resultJson, `${cached}${this.completeMeta}`)) };
  }

  private error(id: JsonRpcId, error: JsonRpcErrorObject): ModernOutcome {
    const modern = modernError(error);
    return { kind: 'answered', era: 'modern', httpStatus: statusOf(modern, false), body: serializeError(id, modern) };
  }

  private async run(id: JsonRpcId, work: () => Promise<unknown>, cache?: CacheHint): Promise<ModernOutcome> {
    try {
      return this.result(id, JSON.stringify(await work()), cache);
    } catch (error) {
      if (error instanceof ResourceMethodError) return this.error(id, error.rpcError);
      const rpcError = toRpcError(error);
      if (rpcError.message === 'internal error') this.options.log(`method failed: ${describeLoggableError(error)}`);
      return this.error(id, rpcError);
    }
  }

  private async listen(id: JsonRpcId, params: JsonRpcParams, principal: Principal): Promise<ModernOutcome> {
    try {
      return { kind: 'listen', id, filter: await this.listenFilter(params, principal) };
    } catch (error) {
      if (error instanceof ListenParamsError) return this.error(id, { code: RPC_INVALID_PARAMS, message: error.message });
      const rpcError = toRpcError(error);
      if (rpcError.message === 'internal error') this.options.log(`subscriptions/listen failed: ${describeLoggableError(error)}`);
      return this.error(id, rpcError);
    }
  }

  /**
   * The honored subset of a listen filter: resourcesListChanged, and the URIs that name the inbox
   * or a cell the caller can read (others are left out of the acknowledgment, foreign or missing
   * alike). This server's tools and prompts never change, so their list_changed is never honored.
   */
  private async listenFilter(params: JsonRpcParams, principal: Principal): Promise<ListenFilter> {
    const requested = params.notifications;
    if (!isPlainObject(requested)) throw listenParamsError('notifications must be an object (the notification filter)');
    for (const flag of ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged']) {
      if (requested[flag] !== undefined && typeof requested[flag] !== 'boolean') throw listenParamsError(`notifications.${flag} must be a boolean`);
    }
    const uris = requested.resourceSubscriptions;
    if (uris !== undefined && (!Array.isArray(uris) || uris.some((uri) => typeof uri !== 'string'))) {
      throw listenParamsError('notifications.resourceSubscriptions must be an array of resource URIs');
    }
    const wanted = (uris ?? []) as string[];
    if (wanted.length > MAX_LISTEN_RESOURCES) throw listenParamsError(`notifications.resourceSubscriptions holds at most ${MAX_LISTEN_RESOURCES} URIs`);
    const resources = new Map<string, string>();
    for (const uri of wanted) {
      const target = parseResourceUri(uri);
      if (target === null || (target.kind === 'inbox' && target.afterSeq !== undefined)) continue;
      const key = target.kind === 'inbox' ? 'inbox' : cellSubscriptionKey(target.nodeId);
      if (resources.has(key)) continue;
      if (target.kind === 'cell') {
        try {
          await this.options.facade.getCell(principal, target.nodeId);
        } catch (error) {
          if (isHyphaeError(error) && error.code === 'NOT_FOUND') continue;
          throw error;
        }
      }
      resources.set(key, uri);
    }
    const resourcesListChanged = requested.resourcesListChanged === true;
    const acknowledged: Record<string, unknown> = {
      ...(resourcesListChanged ? { resourcesListChanged: true } : {}),
      ...(uris === undefined ? {} : { resourceSubscriptions: [...resources.values()] }),
    };
    return { resourcesListChanged, resources, acknowledged };
  }
}
