// A Clock that only moves when told to, for tests: timers fire inside advance(), in due order,
// and a test can wait for the moment code under test schedules its next timer (the proof that
// it has finished the step before it). view() gives another component its own clock on the same
// timeline, so several of them (e.g. two leader candidates) share one notion of time while the
// test can still wait on each one separately.
import type { Clock } from './clock.js';

interface PendingTimer {
  at: number;
  seq: number;
  fn: () => void;
}

export interface ManualTimeline {
  now: number;
  seq: number;
  pending: PendingTimer[];
}

interface ScheduleWaiter {
  delayMs: number | undefined;
  resolve: () => void;
}

export class ManualClock implements Clock {
  private readonly timeline: ManualTimeline;
  private readonly own = new Set<PendingTimer>();
  private waiters: ScheduleWaiter[] = [];
  /** Every delay scheduled through this clock, in order. */
  readonly delays: number[] = [];

  constructor(start: number | ManualTimeline = Date.now()) {
    this.timeline = typeof start === 'number' ? { now: start, seq: 0, pending: [] } : start;
  }

  /** Another clock on the same timeline, with its own delays and waiters. */
  view(): ManualClock {
    return new ManualClock(this.timeline);
  }

  now(): number {
    return this.timeline.now;
  }

  after(delayMs: number, fn: () => void): () => void {
    const timer: PendingTimer = {
      at: this.timeline.now + delayMs,
      seq: this.timeline.seq++,
      fn: () => {
        this.own.delete(timer);
        fn();
      },
    };
    this.timeline.pending.push(timer);
    this.own.add(timer);
    this.delays.push(delayMs);
    const ready = this.waiters.filter((w) => w.delayMs === undefined || w.delayMs === delayMs);
    this.waiters = this.waiters.filter((w) => !ready.includes(w));
    for (const w of ready) w.resolve();
    return () => {
      this.own.delete(timer);
      this.timeline.pending = this.timeline.pending.filter((t) => t !== timer);
    };
  }

  /** Timers scheduled through this clock that have neither fired nor been cancelled. */
  pendingCount(): number {
    return this.own.size;
  }

  /** Move the shared time forward by `ms`, firing every timer that falls due, earliest first. */
  advance(ms: number): void {
    const target = this.timeline.now + ms;
    for (;;) {
      const due = this.timeline.pending.filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timeline.pending = this.timeline.pending.filter((t) => t !== due);
      this.timeline.now = due.at;
      due.fn();
    }
    this.timeline.now = target;
  }

  /** Resolves when a timer (of `delayMs`, if given) is next scheduled through this clock. */
  nextScheduled(delayMs?: number): Promise<void> {
    return new Promise((resolve) => this.waiters.push({ delayMs, resolve }));
  }
}
