/** One inbox's open live stream (live-diff-feed.ts): its diffs exactly once and in seq order, from the bus or caught up from the diffs table. */
import type { Diff } from '../core/entities.js';
import type { Queryable } from '../store/db.js';
import { diffsAfterSeq } from '../store/diff-repository.js';
import type { DiffEnvelope } from './bus.js';
import { toDiff } from './diff-row.js';

/** Structurally a subset of HyphaeMetrics. */
export interface PushDelayObserver {
  observeDiffPushDelay(seconds: number): void;
}

export interface InboxStreamDeps {
  readonly db: Queryable;
  readonly pageSize: number;
  readonly onError: (error: unknown) => void;
  readonly metrics: PushDelayObserver | undefined;
}

export function inboxKey(tenantId: string, agent: string): string {
  return `${tenantId}\u0000${agent}`;
}

/** One open stream; every step runs on its own serial queue, so catch-up and bus messages never interleave. */
export class InboxStream {
  private queue: Promise<void> = Promise.resolve();
  private closed = false;
  /** Counted in the feed's subscription of its tenant. */
  holdsTenant = false;
  /** Diffs written before this are a resume's backlog, not pushes: their delay is the client's absence. */
  private readonly openedAt = Date.now();

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

  async open(): Promise<void> {
    await this.enqueue(() => this.catchUp());
  }

  catchUpSoon(): void {
    void this.enqueue(() => this.catchUp()).catch(this.deps.onError);
  }

  close(): void {
    this.closed = true;
  }

  onEnvelope(envelope: DiffEnvelope): void {
    void this.enqueue(async () => {
      const seq = envelope.diff.seq;
      if (seq <= this.lastSeq) return;
      if (seq === this.lastSeq + 1) this.deliver(envelope.diff);
      else await this.catchUp();
    }).catch(this.deps.onError);
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    const run = this.queue.then(() => (this.closed ? undefined : step()));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private deliver(diff: Diff): void {
    if (this.closed || diff.seq <= this.lastSeq) return;
    this.lastSeq = diff.seq;
    const written = Date.parse(diff.created_at);
    if (written >= this.openedAt) this.deps.metrics?.observeDiffPushDelay((Date.now() - written) / 1000);
    try {
      this.listener(diff);
    } catch (error) {
      this.deps.onError(error);
    }
  }

  private async catchUp(): Promise<void> {
    for (;;) {
      const rows = await diffsAfterSeq(this.deps.db, this.tenantId, this.agent, this.lastSeq, this.deps.pageSize);
      for (const row of rows) this.deliver(toDiff(row));
      if (rows.length < this.deps.pageSize || this.closed) return;
    }
  }
}
