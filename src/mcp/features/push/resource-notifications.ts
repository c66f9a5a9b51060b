/**
 * What a batch of newly landed diffs means for one MCP session, in standard notifications:
 * `notifications/resources/updated` for hyphae://inbox and for any subscribed cell a diff names,
 * and `notifications/resources/list_changed` when a cell the caller can read appeared or went.
 */
import type { Diff } from '../../../core/entities.js';
import type { JsonRpcNotificationMessage } from '../../protocol/json-rpc.js';
import { INBOX_URI, cellUri } from '../resources/resource-uris.js';
import { INBOX_SUBSCRIPTION_KEY, cellSubscriptionKey } from '../resources/session-subscriptions.js';

export const RESOURCE_UPDATED_METHOD = 'notifications/resources/updated';
export const RESOURCE_LIST_CHANGED_METHOD = 'notifications/resources/list_changed';

export interface ResourceNotificationOptions {
  /** Whether list_changed goes out (not to clients that take notifications/hyphae/diff, which say the same in full). */
  readonly listChanged: boolean;
}

export function resourceNotifications(
  batch: readonly Diff[],
  subscribed: ReadonlySet<string>,
  options: ResourceNotificationOptions,
): JsonRpcNotificationMessage[] {
  if (batch.length === 0) return [];
  const out: JsonRpcNotificationMessage[] = [];
  if (subscribed.has(INBOX_SUBSCRIPTION_KEY)) out.push({ jsonrpc: '2.0', method: RESOURCE_UPDATED_METHOD, params: { uri: INBOX_URI } });
  const cells = new Set(batch.map((diff) => diff.node_id));
  for (const nodeId of cells) {
    if (subscribed.has(cellSubscriptionKey(nodeId))) out.push({ jsonrpc: '2.0', method: RESOURCE_UPDATED_METHOD, params: { uri: cellUri(nodeId) } });
  }
  if (options.listChanged && batch.some((diff) => diff.op !== 'updated')) out.push({ jsonrpc: '2.0', method: RESOURCE_LIST_CHANGED_METHOD });
  return out;
}

/**
 * Collects diffs as they land and turns each batch into notifications once the session's
 * subscriptions are known. Lookups never overlap: diffs landing during one join the next batch,
 * so a burst costs one lookup, not one per diff.
 */
export class ResourceNotifier {
  private batch: Diff[] = [];
  private running = false;
  private closed = false;

  constructor(
    private readonly subscriptions: () => Promise<ReadonlySet<string>>,
    private readonly emit: (messages: readonly JsonRpcNotificationMessage[], lastSeq: number) => void,
    private readonly options: ResourceNotificationOptions,
    private readonly onError: (error: unknown) => void = (): void => undefined,
  ) {}

  push(diff: Diff): void {
    if (this.closed) return;
    this.batch.push(diff);
    if (this.running) return;
    this.running = true;
    setImmediate(() => void this.drain());
  }

  close(): void {
    this.closed = true;
    this.batch = [];
  }

  private async drain(): Promise<void> {
    try {
      while (this.batch.length > 0 && !this.closed) {
        const batch = this.batch;
        this.batch = [];
        const subscribed = await this.subscriptions();
        if (this.closed) return;
        const messages = resourceNotifications(batch, subscribed, this.options);
        if (messages.length > 0) this.emit(messages, batch[batch.length - 1]?.seq ?? 0);
      }
    } catch (error) {
      this.onError(error);
    } finally {
      this.running = false;
      if (this.batch.length > 0 && !this.closed) this.push(this.batch.pop() as Diff);
    }
  }
}
