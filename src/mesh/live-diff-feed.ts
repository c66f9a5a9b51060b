import type { Diff } from '../core/entities.js';
import type { Queryable } from '../store/db.js';
import { beaconSubject } from './bus.js';
import type { Bus, BusSubscription, DiffEnvelope } from './bus.js';
import { connectionEventsOf } from './bus-connection.js';
import { beaconChangeChannelOf } from './beacon-change-channel.js';
import { DIFF_ROW_COLUMNS, toDiff } from './diff-row.js';
import type { DeliveryRow } from './diff-row.js';

export interface LiveDiffFeedOptions {
  readonly db: Queryable;
  readonly bus: Bus;
  /** Checks every stream's inbox head at this interval; one that fell behind re-reads its beacons and catches up. */
  readonly refreshIntervalMs?: number;
  /** Rows per catch-up query. */
  readonly catchUpPageSize?: number;
  /** Called with errors of background refreshes (the stream keeps going). */
  readonly onError?: (error: unknown) => void;
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
 */
export class LiveDiffFeed {
  private readonly db: Queryable;
  private readonly bus: Bus;
  private readonly refreshIntervalMs: number;
  private readonly catchUpPageSize: number;
  private readonly onError: (error: unknown) => void;
  private readonly streams = new Set<InboxStream>();
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;
  private readonly unlisten: (() => void) | undefined;

  constructor(options: LiveDiffFeedOptions) {
    this.db = options.db;
    this.bus = options.bus;
    this.refreshIntervalMs = options.refreshIntervalMs ?? 5_000;
    this.catchUpPageSize = options.catchUpPageSize ?? 200;
    this.onError = options.onError ?? ((): void => undefined);
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
    const head = await this.inboxHead(tenantId, agent);
    const startSeq = afterSeq === undefined ? head : Math.min(afterSeq, head);
    const stream = new InboxStream(
      { db: this.db, bus: this.bus, pageSize: this.catchUpPageSize, onError: this.onError },
      tenantId,
      agent,
      startSeq,
      listener,
    );
    this.streams.add(stream);
    try {
      await stream.open();
    } catch (error) {
      this.streams.delete(stream);
      await stream.close();
      throw error;
    }
    this.ensureTimer();
    return {
      close: async (): Promise<void> => {
        this.streams.delete(stream);
        if (this.streams.size === 0) this.stopTimer();
        await stream.close();
      },
    };
  }

  /** The agent's beacons changed on this replica: tell this replica's streams and, over the bus, the others'. */
  async beaconsChanged(tenantId: string, agent: string): Promise<void> {
    for (const stream of this.streams) if (stream.isFor(tenantId, agent)) stream.refreshSoon();
    await beaconChangeChannelOf(this.bus)?.announceBeaconsChanged(tenantId, agent).catch(this.onError);
  }

  get openStreams(): number {
    return this.streams.size;
  }

  async close(): Promise<void> {
    this.unlisten?.();
    this.stopTimer();
    const streams = [...this.streams];
    this.streams.clear();
    await Promise.all(streams.map((stream) => stream.close()));
  }

  private async inboxHead(tenantId: string, agent: string): Promise<number> {
    const { rows } = await this.db.query<{ head: number | null }>(
      `SELECT GREATEST(
         (SELECT last_seq FROM inboxes WHERE tenant_id = $1 AND agent = $2),
         (SELECT max(seq) FROM diffs WHERE tenant_id = $1 AND recipient_agent = $2)
       )::float8 AS head`,
      [tenantId, agent],
    );
    return Number(rows[0]?.head ?? 0);
  }

  private ensureTimer(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.refreshIntervalMs);
    this.timer.unref();
  }

  /**
   * The safety net, one query whatever the number of streams: a stream whose inbox head moved
   * past what it delivered re-reads its beacons and catches up (a lost last message, a beacon
   * placed on another replica whose announcement was missed).
   */
  private async tick(): Promise<void> {
    if (this.ticking || this.streams.size === 0) return;
    this.ticking = true;
    try {
      const streams = [...this.streams];
      const { rows } = await this.db.query<{ tenant_id: string; agent: string; last_seq: number }>(
        `SELECT i.tenant_id, i.agent, i.last_seq::float8 AS last_seq
         FROM inboxes i JOIN unnest($1::text[], $2::text[]) AS s(tenant_id, agent) USING (tenant_id, agent)`,
        [streams.map((stream) => stream.tenantId), streams.map((stream) => stream.agent)],
      );
      const heads = new Map(rows.map((row) => [`${row.tenant_id}\u0000${row.agent}`, Number(row.last_seq)]));
      for (const stream of streams) {
        if ((heads.get(`${stream.tenantId}\u0000${stream.agent}`) ?? 0) > stream.deliveredSeq) stream.refreshSoon();
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

interface InboxStreamDeps {
  readonly db: Queryable;
  readonly bus: Bus;
  readonly pageSize: number;
  readonly onError: (error: unknown) => void;
}

/** One open stream; every step runs on its own serial queue, so catch-up and bus messages never interleave. */
class InboxStream {
  private readonly beaconSubscriptions = new Map<string, BusSubscription>();
  private changeSubscription: BusSubscription | undefined;
  private queue: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly deps: InboxStreamDeps,
    readonly tenantId: string,
    readonly agent: string,
    private lastSeq: number,
    private readonly listener: (diff: Diff) => void,
  ) {}

  get deliveredSeq(): number {
    return this.lastSeq;
  }

  isFor(tenantId: string, agent: string): boolean {
    return this.tenantId === tenantId && this.agent === agent;
  }

  /** Subscribes before catching up, so nothing committed after the catch-up query can slip between. */
  async open(): Promise<void> {
    const channel = beaconChangeChannelOf(this.deps.bus);
    if (channel) this.changeSubscription = await channel.onBeaconsChanged(this.tenantId, this.agent, () => this.refreshSoon());
    await this.enqueue(async () => {
      await this.syncBeacons();
      await this.catchUp();
    });
  }

  refreshSoon(): void {
    void this.enqueue(async () => {
      await this.syncBeacons();
      await this.catchUp();
    }).catch(this.deps.onError);
  }

  catchUpSoon(): void {
    void this.enqueue(() => this.catchUp()).catch(this.deps.onError);
  }

  async close(): Promise<void> {
    this.closed = true;
    const subscriptions = [...this.beaconSubscriptions.values()];
    this.beaconSubscriptions.clear();
    if (this.changeSubscription) subscriptions.push(this.changeSubscription);
    await Promise.all(subscriptions.map((subscription) => subscription.unsubscribe().catch(this.deps.onError)));
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    const run = this.queue.then(() => (this.closed ? undefined : step()));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private onEnvelope(envelope: DiffEnvelope): void {
    if (envelope.tenantId !== this.tenantId || envelope.recipientAgent !== this.agent) return;
    void this.enqueue(async () => {
      const seq = envelope.diff.seq;
      if (seq <= this.lastSeq) return;
      if (seq === this.lastSeq + 1) this.deliver(envelope.diff);
      else await this.catchUp();
    }).catch(this.deps.onError);
  }

  private deliver(diff: Diff): void {
    if (this.closed || diff.seq <= this.lastSeq) return;
    this.lastSeq = diff.seq;
    try {
      this.listener(diff);
    } catch (error) {
      this.deps.onError(error);
    }
  }

  private async catchUp(): Promise<void> {
    for (;;) {
      const { rows } = await this.deps.db.query<DeliveryRow>(
        `SELECT ${DIFF_ROW_COLUMNS} FROM diffs
         WHERE tenant_id = $1 AND recipient_agent = $2 AND seq > $3 ORDER BY seq LIMIT $4`,
        [this.tenantId, this.agent, this.lastSeq, this.deps.pageSize],
      );
      for (const row of rows) this.deliver(toDiff(row));
      if (rows.length < this.deps.pageSize || this.closed) return;
    }
  }

  /** Subscribes to the subjects of the agent's live beacons and drops those of deleted or expired ones. */
  private async syncBeacons(): Promise<void> {
    const { rows } = await this.deps.db.query<{ beacon_id: string }>(
      `SELECT beacon_id::text AS beacon_id FROM beacons
       WHERE tenant_id = $1 AND owner_agent = $2 AND (expires_at IS NULL OR expires_at > now())`,
      [this.tenantId, this.agent],
    );
    const wanted = new Set(rows.map((row) => row.beacon_id));
    for (const [beaconId, subscription] of this.beaconSubscriptions) {
      if (wanted.has(beaconId)) continue;
      this.beaconSubscriptions.delete(beaconId);
      await subscription.unsubscribe();
    }
    for (const beaconId of wanted) {
      if (this.beaconSubscriptions.has(beaconId) || this.closed) continue;
      const subscription = await this.deps.bus.subscribe(beaconSubject(this.tenantId, beaconId), (envelope) =>
        this.onEnvelope(envelope),
      );
      if (this.closed) await subscription.unsubscribe();
      else this.beaconSubscriptions.set(beaconId, subscription);
    }
  }
}
