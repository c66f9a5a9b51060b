/**
 * Recall and query never write on their hot path: they record hits here, in memory, and a
 * timer (and close) flushes them as one batched UPDATE that also reinforces the cells. What a
 * crash loses is at most one interval of hit counts, never a memory.
 */
import type { Queryable } from '../../store/db.js';
import { applyHits, type HitCount } from '../../store/cell-repository.js';
import type { CellRow } from '../../store/cell-row.js';

export interface HitRecorderOptions {
  readonly clock: () => Date;
  /** Called with the rows a flush updated (the promotion check). */
  readonly onFlushed?: (rows: readonly CellRow[]) => Promise<void>;
  readonly onError?: (error: unknown) => void;
}

export class HitRecorder {
  /** Pending counts by tenant, then node id: a recall's ids are looked up as they come, no key built per hit. */
  private pending = new Map<string, Map<string, number>>();
  private flushing: Promise<void> = Promise.resolve();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly db: Queryable,
    private readonly options: HitRecorderOptions,
  ) {}

  record(tenantId: string, nodeIds: readonly string[]): void {
    if (nodeIds.length === 0) return;
    const counts = this.tenantCounts(tenantId);
    for (const nodeId of nodeIds) counts.set(nodeId, (counts.get(nodeId) ?? 0) + 1);
  }

  get pendingCount(): number {
    let count = 0;
    for (const counts of this.pending.values()) count += counts.size;
    return count;
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

  private tenantCounts(tenantId: string): Map<string, number> {
    let counts = this.pending.get(tenantId);
    if (counts === undefined) {
      counts = new Map();
      this.pending.set(tenantId, counts);
    }
    return counts;
  }

  private async flushPending(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch: HitCount[] = [];
    for (const [tenantId, counts] of this.pending) for (const [nodeId, count] of counts) batch.push({ tenantId, nodeId, count });
    this.pending = new Map();
    let rows: CellRow[];
    try {
      rows = await applyHits(this.db, batch, this.options.clock());
    } catch (error) {
      // Put the counts back so the next flush retries them.
      for (const hit of batch) {
        const counts = this.tenantCounts(hit.tenantId);
        counts.set(hit.nodeId, (counts.get(hit.nodeId) ?? 0) + hit.count);
      }
      throw error;
    }
    await this.options.onFlushed?.(rows);
  }
}
