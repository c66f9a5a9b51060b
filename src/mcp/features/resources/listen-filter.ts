/**
 * The filter of a `subscriptions/listen` (MCP 2026-07-28): what the request asked for and the
 * server agreed to honor — resourcesListChanged, and the URIs that name the inbox or a cell the
 * caller can read (others are left out of the acknowledgment, foreign or missing alike). This
 * server's tools and prompts never change, so their list_changed is never honored.
 */
import { isHyphaeError } from '../../../core/errors.js';
import type { Principal } from '../../../core/principal.js';
import type { MemoryFacade } from '../../../service/memory-facade.js';
import type { JsonRpcParams } from '../../protocol/json-rpc.js';
import { isPlainObject } from '../../protocol/json-rpc.js';
import { invalidParams } from '../../protocol/rpc-errors.js';
import type { ListenFilter } from '../../server/listen-filter.js';
import { parseResourceUri } from './resource-uris.js';
import { subscriptionKeyOf } from './session-subscriptions.js';

/** At most this many URIs in one subscriptions/listen filter. */
export const MAX_LISTEN_RESOURCES = 64;

/** Reads and checks a listen's `notifications` (an RpcMethodError when they are malformed); a facade failure (other than a missing cell) throws as it is. */
export async function readListenFilter(params: JsonRpcParams, principal: Principal, facade: Pick<MemoryFacade, 'getCell'>): Promise<ListenFilter> {
  const requested = params.notifications;
  if (!isPlainObject(requested)) throw invalidParams('notifications must be an object (the notification filter)');
  for (const flag of ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged']) {
    if (requested[flag] !== undefined && typeof requested[flag] !== 'boolean') throw invalidParams(`notifications.${flag} must be a boolean`);
  }
  const uris = requested.resourceSubscriptions;
  if (uris !== undefined && (!Array.isArray(uris) || uris.some((uri) => typeof uri !== 'string'))) {
    throw invalidParams('notifications.resourceSubscriptions must be an array of resource URIs');
  }
  const wanted = (uris ?? []) as string[];
  if (wanted.length > MAX_LISTEN_RESOURCES) throw invalidParams(`notifications.resourceSubscriptions holds at most ${MAX_LISTEN_RESOURCES} URIs`);
  const resources = new Map<string, string>();
  for (const uri of wanted) {
    const target = parseResourceUri(uri);
    if (target === null || (target.kind === 'inbox' && target.afterSeq !== undefined)) continue;
    const key = subscriptionKeyOf(target);
    if (resources.has(key)) continue;
    if (target.kind === 'cell') {
      try {
        await facade.getCell(principal, target.nodeId);
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
