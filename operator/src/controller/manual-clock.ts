// A Clock that only moves when told to, for tests: timers fire inside advance(), in due order,
// and a test can wait for the moment code under test schedules its next timer (the proof that
// it has finished the step before it).
import type { Clock } from './clock.js';

interface PendingTimer {
  at: number;
  seq: number;
  fn: () => void;
}

interface ScheduleWaiter {
  delayMs: number | undefined;
  resolve: () => void;
}

export class ManualClock implements Clock {
  private current: number;
  private seq = 0;
  private pending: PendingTimer[] = [];
  private waiters: ScheduleWaiter[] = [];
  /** Every delay ever scheduled, in order. */
  readonly delays: number[] = [];

  constructor(start = Date.now()) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  after(delayMs: number, fn: () => void): () => void {
    const timer: PendingTimer = { at: this.current + delayMs, seq: this.seq++, fn };
    this.pending.push(timer);
    this.delays.push(delayMs);
    const ready = this.waiters.filter((w) => w.delayMs === undefined || w.delayMs === delayMs);
    this.waiters = this.waiters.filter((w) => !ready.includes(w));
    for (const w of ready) w.resolve();
    return () => {
      this.pending = this.pending.filter((t) => t !== timer);
    };
  }

  /** Number of timers not yet fired or cancelled. */
  pendingCount(): number {
    return this.pending.length;
  }

  /** Move time forward by `ms`, firing every timer that falls due on the way, earliest first. */
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      const due = this.pending.filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.pending = this.pending.filter((t) => t !== due);
      this.current = due.at;
      due.fn();
    }
    this.current = target;
  }

  /** Resolves when a timer (of `delayMs`, if given) is scheduled after this call. */
  nextScheduled(delayMs?: number): Promise<void> {
    return new Promise((resolve) => this.waiters.push({ delayMs, resolve }));
  }
}
