/**
 * The time a store stamps its cell with. `created_at` keeps milliseconds and listings go newest
 * first by it, so two stores made one after the other within a millisecond would list in either
 * order. Embedded — one writer, whose stores cannot keep up a thousand a second for long — each
 * stamp is at least a millisecond after the previous one. Shared databases take the clock as it is:
 * their stores come from several processes, whose order no stamp of one could settle.
 */
export class StoreStamps {
  private lastMs = 0;

  constructor(
    private readonly clock: () => Date,
    private readonly strictlyIncreasing: boolean,
  ) {}

  next(): Date {
    const now = this.clock();
    if (!this.strictlyIncreasing) return now;
    const ms = Math.max(now.getTime(), this.lastMs + 1);
    this.lastMs = ms;
    return ms === now.getTime() ? now : new Date(ms);
  }
}
