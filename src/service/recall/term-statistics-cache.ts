/**
 * The term statistics recall judges identifiers by (src/store/term-statistics.ts), kept in the
 * process and read again at most once a minute, in the background: a recall never waits for them.
 * They describe the shared table, not a tenant or a replica, so every replica reads the same ones
 * and holds them at most a minute after the planner renewed them (an ANALYZE); until the first
 * read a recall simply looks every identifier up (docs/memory-model.md, "Recall and query").
 */
import type { Db } from '../../store/db.js';
import { readTermStatistics, type TermStatistics } from '../../store/term-statistics.js';

export const TERM_STATISTICS_TTL_MS = 60_000;

export class TermStatisticsCache {
  private statistics: TermStatistics | undefined;
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly onError: (error: unknown) => void = () => undefined,
    private readonly ttlMs = TERM_STATISTICS_TTL_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The statistics last read, if any; past their time a new read starts behind the caller's back. */
  current(): TermStatistics | undefined {
    if (this.reading === undefined && this.now() - this.readAt >= this.ttlMs) this.reading = this.read();
    return this.statistics;
  }

  /** Waits for a read under way (close, tests). */
  async settled(): Promise<void> {
    await this.reading;
  }

  private async read(): Promise<void> {
    try {
      this.statistics = await readTermStatistics(this.db);
    } catch (error) {
      // The last statistics stay; the next read is a TTL away, so a failing database is not asked on every recall.
      this.onError(error);
    } finally {
      this.readAt = this.now();
      this.reading = undefined;
    }
  }
}
