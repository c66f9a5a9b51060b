/**
 * The push of one `subscriptions/listen` (MCP 2026-07-28), whatever the transport: the caller's
 * diffs — from whichever replica produced them, through the facade's live feed — turned into
 * the notifications its filter opted in to (`notifications/resources/updated` for the inbox and
 * subscribed cells, `notifications/resources/list_changed`), each tagged with the subscription id
 * (the listen request's JSON-RPC id). The acknowledgment goes first; nothing is sent before it.
 * The filter travels in the request, so nothing is stored: a broken stream is re-issued by the client.
 */
import type { Principal } from '../../../core/principal.js';
import type { LiveSubscription, MemoryFacade } from '../../../service/memory-facade.js';
import type { JsonRpcId, JsonRpcNotificationMessage } from '../../protocol/json-rpc.js';
import { META_SUBSCRIPTION_ID } from '../../protocol/stateless-meta.js';
import type { ListenFilter } from '../../server/listen-filter.js';
import { cellUri } from '../resources/resource-uris.js';
import { subscribedCellOf } from '../resources/session-subscriptions.js';
import { ResourceNotifier, RESOURCE_UPDATED_METHOD } from './resource-notifications.js';

export const ACKNOWLEDGED_METHOD = 'notifications/subscriptions/acknowledged';

export interface ListenPush {
  /** Sends the acknowledgment, then what landed since the subscription began, then everything live. */
  start(): void;
  close(): Promise<void>;
  /** Settles when the server ends the subscription (the key was revoked); the transport then answers the listen. */
  readonly ended: Promise<void> | undefined;
}

export interface ListenPushOptions {
  readonly facade: Pick<MemoryFacade, 'subscribeDiffs'>;
  readonly principal: Principal;
  readonly id: JsonRpcId;
  readonly filter: ListenFilter;
  readonly emit: (message: JsonRpcNotificationMessage) => void;
  readonly onError?: (error: unknown) => void;
}

function tagged(message: JsonRpcNotificationMessage, id: JsonRpcId, uri?: string): JsonRpcNotificationMessage {
  return {
    jsonrpc: '2.0',
    method: message.method,
    params: { ...message.params, ...(uri === undefined ? {} : { uri }), _meta: { [META_SUBSCRIPTION_ID]: id } },
  };
}

/** Subscribes to the caller's diffs (a facade failure throws: the transport answers it as an error). */
export async function openListenPush(options: ListenPushOptions): Promise<ListenPush> {
  const { id, filter } = options;
  // Notifications name resources as the client wrote them in its filter.
  const asRequested = new Map<string, string>();
  for (const [key, uri] of filter.resources) {
    const cell = subscribedCellOf(key);
    asRequested.set(cell === undefined ? uri : cellUri(cell), uri);
  }
  const keys: ReadonlySet<string> = new Set(filter.resources.keys());
  let started = false;
  const held: JsonRpcNotificationMessage[] = [];
  const out = (message: JsonRpcNotificationMessage): void => {
    if (started) options.emit(message);
    else held.push(message);
  };
  const notifier = new ResourceNotifier(
    async () => keys,
    (messages) => {
      for (const message of messages) {
        const uri = message.method === RESOURCE_UPDATED_METHOD ? asRequested.get(String(message.params?.uri)) : undefined;
        out(tagged(message, id, uri));
      }
    },
    { listChanged: filter.resourcesListChanged },
    options.onError,
  );
  const wantsAny = filter.resourcesListChanged || keys.size > 0;
  let subscription: LiveSubscription | undefined;
  if (wantsAny) {
    subscription = await options.facade.subscribeDiffs(options.principal, (diff) => notifier.push(diff));
  }
  return {
    start(): void {
      if (started) return;
      options.emit({
        jsonrpc: '2.0',
        method: ACKNOWLEDGED_METHOD,
        params: { _meta: { [META_SUBSCRIPTION_ID]: id }, notifications: filter.acknowledged },
      });
      started = true;
      for (const message of held.splice(0)) options.emit(message);
    },
    async close(): Promise<void> {
      notifier.close();
      held.length = 0;
      await subscription?.close();
    },
    ended: subscription?.ended,
  };
}

/** The answer a listen gets when the server ends it because its key no longer authenticates. */
export const REVOKED_LISTEN_MESSAGE = 'the API key of this subscription was revoked';
