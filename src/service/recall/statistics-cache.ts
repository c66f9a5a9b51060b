/**
 * Figures recall reads from the planner's statistics — how common terms are (src/store/term-statistics.ts),
 * how the cells are shared among tenants, layers and projects (src/store/cell-statistics.ts) — kept in the process and
 * read again at most once a minute, in the background: a recall never waits for them. They describe
 * the shared tables, not a tenant or a replica, so every replica reads the same ones and holds them at
 * most a minute after the planner renewed them (an ANALYZE); until the first read a recall does
 * without them (docs/memory-model.md, "Recall and query"; docs/feedback-learning.md, "What it costs").
 */
export const STATISTICS_TTL_MS = 60_000;

export class StatisticsCache<T> {
  private statistics: T | undefined;
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | undefined;

  constructor(
    private readonly readStatistics: () => Promise<T>,
    private readonly onError: (error: unknown) => void = () => undefined,
    private readonly ttlMs = STATISTICS_TTL_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The statistics last read, if any; past their time a new read starts behind the caller's back. */
  current(): T | undefined {
    if (this.reading === undefined && this.now() - this.readAt >= this.ttlMs) this.reading = this.read();
    return this.statistics;
  }

  /** Waits for a read under way (close, tests). */
  async settled(): Promise<void> {
    await this.reading;
  }

  private async read(): Promise<void> {
    try {
      this.statistics = await this.readStatistics();
    } catch (error) {
      // The last statistics stay; the next read is a TTL away, so a failing database is not asked on every recall.
      this.onError(error);
    } finally {
      this.readAt = this.now();
      this.reading = undefined;
    }
  }
}
