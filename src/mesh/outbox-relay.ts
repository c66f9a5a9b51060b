import type { Db } from '../store/db.js';
import { claimUnpublishedDiffs, markDiffsPublished, outboxLagSeconds } from '../store/outbox-relay-repository.js';
import { beaconSubject } from './bus.js';
import type { Bus } from './bus.js';
import { connectionEventsOf } from './bus-connection.js';
import { envelopeFromRow } from './diff-row.js';

/** Structurally a subset of HyphaeMetrics, so mesh does not import the HTTP layer. */
export interface OutboxRelayMetrics {
  setOutboxLag(seconds: number): void;
  countDiffsDelivered(transport: 'bus', count: number): void;
}

/** Where the relay schedules its sweeps and retries; tests drive it by hand. */
export interface RelayTimers {
  set(fn: () => void, delayMs: number): unknown;
  clear(handle: unknown): void;
}

const REAL_TIMERS: RelayTimers = {
  set: (fn, delayMs) => setTimeout(fn, delayMs).unref(),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout | undefined),
};

export interface OutboxRelayOptions {
  readonly db: Db;
  readonly bus: Bus;
  /** Diffs claimed per transaction. */
  readonly batchSize?: number;
  /** Sweep interval when nothing nudges the relay (diffs stored by other replicas, missed nudges). */
  readonly pollIntervalMs?: number;
  /** First retry delay after a failed publish; doubles per failure up to maxBackoffMs. */
  readonly minBackoffMs?: number;
  readonly maxBackoffMs?: number;
  readonly metrics?: OutboxRelayMetrics;
  /** Called with each failed cycle's error (the relay itself retries). */
  readonly onError?: (error: unknown) => void;
  readonly timers?: RelayTimers;
}

export interface RelayBatchResult {
  readonly claimed: number;
  readonly published: number;
  /**
   * The first publish failure, if any. Per inbox only the diffs before its first failed one are
   * marked; that one and the later ones stay unpublished and leave again, in seq order, next time.
   */
  readonly failure?: unknown;
}

/**
 * The outbox relay: claims unpublished diffs with FOR UPDATE SKIP LOCKED (so relays on several
 * replicas share the work and never publish the same claimed row twice), publishes each on its
 * beacon's subject, and marks published_at in the same transaction. It publishes at least once:
 * a crash between the acknowledgement and the commit republishes, and subscribers dedupe by seq.
 */
export class OutboxRelay {
  private readonly db: Db;
  private readonly bus: Bus;
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly minBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly metrics: OutboxRelayMetrics | undefined;
  private readonly onError: (error: unknown) => void;
  private started = false;
  private stopped = false;
  private running: Promise<void> | undefined;
  private rerun = false;
  private failures = 0;
  private readonly timers: RelayTimers;
  private timer: unknown;
  private inBackoff = false;
  private unlisten: (() => void) | undefined;

  constructor(options: OutboxRelayOptions) {
    this.db = options.db;
    this.bus = options.bus;
    this.batchSize = options.batchSize ?? 100;
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.minBackoffMs = options.minBackoffMs ?? 100;
    this.maxBackoffMs = options.maxBackoffMs ?? 10_000;
    this.metrics = options.metrics;
    this.onError = options.onError ?? ((): void => undefined);
    this.timers = options.timers ?? REAL_TIMERS;
  }

  /** Starts the loop: an immediate sweep, then one per poll interval, nudge or bus reconnection. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.unlisten = connectionEventsOf(this.bus)?.onConnectionChange((connected) => {
      if (connected) this.retryNow();
    });
    this.wake();
  }

  /** A diff was just committed on this replica: publish it now rather than at the next tick. */
  nudge(): void {
    if (this.started) this.wake();
  }

  /** The facade's OutboxSignal: diffs were committed on this replica. */
  diffsCommitted(_diffs: readonly unknown[]): void {
    this.nudge();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unlisten?.();
    this.timers.clear(this.timer);
    await this.running;
  }

  /** One claim → publish → mark transaction. */
  async relayBatch(): Promise<RelayBatchResult> {
    const result = await this.db.transaction(async (tx): Promise<RelayBatchResult> => {
      const rows = await claimUnpublishedDiffs(tx, this.batchSize);
      if (rows.length === 0) return { claimed: 0, published: 0 };
      // created_at rises with seq in each inbox (the diff writer's rule) and publishes start in
      // order on one connection, so each inbox's diffs leave in seq order.
      const outcomes = await Promise.allSettled(
        rows.map((row) => this.bus.publish(beaconSubject(row.tenant_id, row.beacon_id), envelopeFromRow(row))),
      );
      const publishedIds: string[] = [];
      const failedInboxes = new Set<string>();
      let failure: unknown;
      outcomes.forEach((outcome, i) => {
        const row = rows[i];
        if (row === undefined) return;
        const inbox = `${row.tenant_id}\u0000${row.recipient_agent}`;
        if (outcome.status === 'rejected') {
          failure ??= outcome.reason;
          failedInboxes.add(inbox);
        } else if (!failedInboxes.has(inbox)) {
          // Marked only while no earlier diff of its inbox failed: an inbox's unpublished diffs stay a seq suffix.
          publishedIds.push(row.diff_id);
        }
      });
      if (publishedIds.length > 0) await markDiffsPublished(tx, publishedIds);
      return failure === undefined
        ? { claimed: rows.length, published: publishedIds.length }
        : { claimed: rows.length, published: publishedIds.length, failure };
    });
    if (result.published > 0) this.metrics?.countDiffsDelivered('bus', result.published);
    return result;
  }

  /** Relays batches until the outbox is empty; throws the first publish failure. */
  async relayAll(): Promise<number> {
    let total = 0;
    for (;;) {
      const batch = await this.relayBatch();
      total += batch.published;
      if (batch.failure !== undefined) throw batch.failure;
      if (batch.claimed < this.batchSize) return total;
    }
  }

  /** Age in seconds of the oldest diff not yet published; 0 when the outbox is empty. */
  outboxLagSeconds(): Promise<number> {
    return outboxLagSeconds(this.db);
  }

  private retryNow(): void {
    if (!this.inBackoff) return;
    this.timers.clear(this.timer);
    this.inBackoff = false;
    this.failures = 0;
    this.wake();
  }

  private wake(): void {
    if (this.stopped || this.inBackoff) return;
    if (this.running) {
      this.rerun = true;
      return;
    }
    this.timers.clear(this.timer);
    this.running = this.cycle().finally(() => {
      this.running = undefined;
    });
  }

  private async cycle(): Promise<void> {
    let delay = this.pollIntervalMs;
    try {
      do {
        this.rerun = false;
        await this.relayAll();
      } while (this.rerun && !this.stopped);
      this.failures = 0;
      // relayAll returned on a short batch: the outbox was empty a moment ago.
      this.metrics?.setOutboxLag(0);
    } catch (error) {
      this.failures += 1;
      this.inBackoff = true;
      delay = Math.min(this.maxBackoffMs, this.minBackoffMs * 2 ** (this.failures - 1));
      this.onError(error);
      await this.reportLag();
    }
    if (this.stopped) return;
    if (this.rerun && !this.inBackoff) delay = 0;
    this.timer = this.timers.set(() => {
      this.inBackoff = false;
      this.wake();
    }, delay);
  }

  private async reportLag(): Promise<void> {
    if (!this.metrics) return;
    try {
      this.metrics.setOutboxLag(await this.outboxLagSeconds());
    } catch (error) {
      this.onError(error);
    }
  }
}
