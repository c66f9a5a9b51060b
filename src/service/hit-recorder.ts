/**
 * Recall and query never write on their hot path: they record hits here, in memory, and a
 * timer (and close) flushes them as one batched UPDATE that also reinforces the cells. What a
 * crash loses is at most one interval of hit counts, never a memory.
 */
import type { Queryable } from '../store/db.js';
import { applyHits, type CellRow, type HitCount } from '../store/cell-repository.js';

export interface HitRecorderOptions {
  readonly clock: () => Date;
  /** Called with the rows a flush updated (the promotion check). */
  readonly onFlushed?: (rows: readonly CellRow[]) => Promise<void>;
  readonly onError?: (error: unknown) => void;
}

export class HitRecorder {
  private pending = new Map<string, HitCount>();
  private flushing: Promise<void> = Promise.resolve();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly db: Queryable,
    private readonly options: HitRecorderOptions,
  ) {}

  record(tenantId: string, nodeIds: readonly string[]): void {
    for (const nodeId of nodeIds) {
      const key = `${tenantId}\u0000${nodeId}`;
      const current = this.pending.get(key);
      this.pending.set(key, { tenantId, nodeId, count: (current?.count ?? 0) + 1 });
    }
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  start(intervalMs: number): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => {
      this.flush().catch((error: unknown) => this.options.onError?.(error));
    }, intervalMs);
    this.timer.unref();
  }

  /** Writes every pending hit; concurrent calls queue behind each other. */
  flush(): Promise<void> {
    this.flushing = this.flushing.catch(() => undefined).then(() => this.flushPending());
    return this.flushing;
  }

  /** Stops the timer and writes what is pending: call on shutdown. */
  async close(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private async flushPending(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    let rows: CellRow[];
    try {
      rows = await applyHits(this.db, batch, this.options.clock());
    } catch (error) {
      // Put the counts back so the next flush retries them.
      for (const hit of batch) this.record(hit.tenantId, Array.from({ length: hit.count }, () => hit.nodeId));
      throw error;
    }
    await this.options.onFlushed?.(rows);
  }
}
