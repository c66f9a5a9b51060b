import type { Diff } from '../core/entities.js';
import type { Queryable } from '../store/db.js';
import { inboxHead, inboxHeads } from '../store/diff-repository.js';
import { tenantBeaconsPattern } from './bus.js';
import type { Bus, BusSubscription, DiffEnvelope } from './bus.js';
import { connectionEventsOf } from './bus-connection.js';
import { InboxStream, inboxKey, type PushDelayObserver } from './inbox-stream.js';

export interface LiveDiffFeedOptions {
  readonly db: Queryable;
  readonly bus: Bus;
  /** Checks every stream's inbox head at this interval; one that fell behind re-reads its beacons and catches up. */
  readonly refreshIntervalMs?: number;
  /** Rows per catch-up query. */
  readonly catchUpPageSize?: number;
  /** Called with errors of background refreshes (the stream keeps going). */
  readonly onError?: (error: unknown) => void;
  /** Told how late each diff written after its stream opened reaches the stream (the gossip SLO). */
  readonly metrics?: PushDelayObserver;
}

/** Structurally the facade's LiveSubscription. */
export interface DiffStream {
  close(): Promise<void>;
}

/**
 * Live diffs of one inbox, exactly once and in seq order. The bus brings them fast; PostgreSQL
 * makes them complete: on open, on any seq gap, on bus reconnection and on every refresh tick,
 * the stream catches up with `seq > last delivered` from the diffs table before going on, and
 * anything at or below the last delivered seq (a republish, a second relay) is dropped.
 *
 * Cost does not follow beacons: the feed holds one bus subscription per tenant with open streams
 * (every beacon subject of the tenant), whatever the number of beacons or streams, and hands each
 * message to the streams of its recipient through an index — a publish costs one lookup, and a
 * beacon placed anywhere is heard at once with no re-subscription.
 */
export class LiveDiffFeed {
  private readonly db: Queryable;
  private readonly bus: Bus;
  private readonly refreshIntervalMs: number;
  private readonly catchUpPageSize: number;
  private readonly onError: (error: unknown) => void;
  private readonly metrics: PushDelayObserver | undefined;
  private readonly streams = new Set<InboxStream>();
  /** Open streams by inbox (tenant, agent). */
  private readonly byInbox = new Map<string, Set<InboxStream>>();
  /** One bus subscription per tenant with open streams (or watchers), counted by them. */
  private readonly tenants = new Map<string, { readonly subscription: Promise<BusSubscription>; streams: number }>();
  /** Tenant-wide watchers by tenant: each hears every envelope of its tenant. */
  private readonly watchers = new Map<string, Set<(envelope: DiffEnvelope) => void>>();
  private readonly watcherClosers = new Set<() => Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;
  private readonly unlisten: (() => void) | undefined;

  constructor(options: LiveDiffFeedOptions) {
    this.db = options.db;
    this.bus = options.bus;
    this.refreshIntervalMs = options.refreshIntervalMs ?? 5_000;
    this.catchUpPageSize = options.catchUpPageSize ?? 200;
    this.onError = options.onError ?? ((): void => undefined);
    this.metrics = options.metrics;
    this.unlisten = connectionEventsOf(this.bus)?.onConnectionChange((connected) => {
      if (connected) for (const stream of this.streams) stream.catchUpSoon();
    });
  }

  /**
   * Opens a stream of the diffs addressed to (tenantId, agent) with seq > afterSeq; without
   * afterSeq (or with one past the head), only diffs newer than the inbox's current head.
   */
  async subscribe(tenantId: string, agent: string, listener: (diff: Diff) => void, afterSeq?: number): Promise<DiffStream> {
    // A resume point beyond the inbox head (another deployment, a reset inbox) would stall the stream.
    const head = await inboxHead(this.db, tenantId, agent);
    const startSeq = afterSeq === undefined ? head : Math.min(afterSeq, head);
    const stream = new InboxStream(
      { db: this.db, pageSize: this.catchUpPageSize, onError: this.onError, metrics: this.metrics },
      tenantId,
      agent,
      startSeq,
      listener,
    );
    this.add(stream);
    try {
      // Subscribed before the catch-up, so nothing committed after its query can slip between.
      await this.acquireTenant(tenantId);
      stream.holdsTenant = true;
      await stream.open();
    } catch (error) {
      await this.remove(stream);
      throw error;
    }
    this.ensureTimer();
    return { close: () => this.remove(stream) };
  }

  /**
   * Every diff the tenant's subscription hears, whoever receives it, as it arrives: the tenant-wide
   * gossip view. Best effort and live only — no catch-up, and a republished diff may come twice —
   * because every inbox stays complete in PostgreSQL; the watcher shares the tenant's one subscription.
   */
  async watchTenant(tenantId: string, listener: (envelope: DiffEnvelope) => void): Promise<{ close(): Promise<void> }> {
    const set = this.watchers.get(tenantId) ?? new Set<(envelope: DiffEnvelope) => void>();
    set.add(listener);
    this.watchers.set(tenantId, set);
    const forget = (): void => {
      set.delete(listener);
      if (set.size === 0 && this.watchers.get(tenantId) === set) this.watchers.delete(tenantId);
    };
    try {
      await this.acquireTenant(tenantId);
    } catch (error) {
      forget();
      throw error;
    }
    let closed = false;
    const close = async (): Promise<void> => {
      if (closed) return;
      closed = true;
      this.watcherClosers.delete(close);
      forget();
      await this.releaseTenant(tenantId);
    };
    this.watcherClosers.add(close);
    return { close };
  }

  /**
   * The agent's beacons changed on this replica. The tenant subscription already hears every
   * beacon, so there is nothing to re-subscribe; the agent's streams catch up at once.
   */
  async beaconsChanged(tenantId: string, agent: string): Promise<void> {
    for (const stream of this.byInbox.get(inboxKey(tenantId, agent)) ?? []) stream.catchUpSoon();
  }

  get openStreams(): number {
    return this.streams.size;
  }

  /** Bus subscriptions the feed holds (one per tenant with open streams). */
  get busSubscriptions(): number {
    return this.tenants.size;
  }

  private add(stream: InboxStream): void {
    this.streams.add(stream);
    const key = inboxKey(stream.tenantId, stream.agent);
    const set = this.byInbox.get(key) ?? new Set<InboxStream>();
    set.add(stream);
    this.byInbox.set(key, set);
  }

  private async remove(stream: InboxStream): Promise<void> {
    if (!this.streams.delete(stream)) return;
    const key = inboxKey(stream.tenantId, stream.agent);
    const set = this.byInbox.get(key);
    set?.delete(stream);
    if (set?.size === 0) this.byInbox.delete(key);
    if (this.streams.size === 0) this.stopTimer();
    stream.close();
    if (stream.holdsTenant) await this.releaseTenant(stream.tenantId);
  }

  private async acquireTenant(tenantId: string): Promise<void> {
    let entry = this.tenants.get(tenantId);
    if (entry === undefined) {
      entry = { subscription: this.bus.subscribe(tenantBeaconsPattern(tenantId), (envelope) => this.dispatch(envelope)), streams: 0 };
      this.tenants.set(tenantId, entry);
      // A failed subscribe is forgotten, so the next stream of the tenant tries again.
      entry.subscription.catch(() => {
        if (this.tenants.get(tenantId) === entry) this.tenants.delete(tenantId);
      });
    }
    entry.streams += 1;
    try {
      await entry.subscription;
    } catch (error) {
      entry.streams -= 1;
      throw error;
    }
  }

  private async releaseTenant(tenantId: string): Promise<void> {
    const entry = this.tenants.get(tenantId);
    if (entry === undefined) return;
    entry.streams -= 1;
    if (entry.streams > 0) return;
    this.tenants.delete(tenantId);
    await entry.subscription.then((subscription) => subscription.unsubscribe()).catch(this.onError);
  }

  private dispatch(envelope: DiffEnvelope): void {
    for (const stream of this.byInbox.get(inboxKey(envelope.tenantId, envelope.recipientAgent)) ?? []) stream.onEnvelope(envelope);
    for (const watcher of this.watchers.get(envelope.tenantId) ?? []) {
      try {
        watcher(envelope);
      } catch (error) {
        this.onError(error);
      }
    }
  }

  async close(): Promise<void> {
    this.unlisten?.();
    this.stopTimer();
    await Promise.all([...this.streams].map((stream) => this.remove(stream)));
    await Promise.all([...this.watcherClosers].map((close) => close()));
  }

  private ensureTimer(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.refreshIntervalMs);
    this.timer.unref();
  }

  /**
   * The safety net, one query whatever the number of streams: a stream whose inbox head moved
   * past what it delivered catches up (a lost last message before a quiet period).
   */
  private async tick(): Promise<void> {
    if (this.ticking || this.streams.size === 0) return;
    this.ticking = true;
    try {
      const streams = [...this.streams];
      const rows = await inboxHeads(this.db, streams);
      const heads = new Map(rows.map((row) => [inboxKey(row.tenant_id, row.agent), Number(row.last_seq)]));
      for (const stream of streams) {
        if ((heads.get(inboxKey(stream.tenantId, stream.agent)) ?? 0) > stream.deliveredSeq) stream.catchUpSoon();
      }
    } catch (error) {
      this.onError(error);
    } finally {
      this.ticking = false;
    }
  }

  private stopTimer(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
