import type { StreamClock } from '../../src/surface-shared/index.js';

/** A clock the test moves by hand: timers run when it passes their time, in order. */
export class HandClock implements StreamClock {
  private time = 0;
  private timers: { at: number; task: () => void }[] = [];

  now(): number {
    return this.time;
  }

  after(delayMs: number, task: () => void): () => void {
    const timer = { at: this.time + delayMs, task };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  advance(ms: number): void {
    const until = this.time + ms;
    for (;;) {
      const next = this.timers.filter((t) => t.at <= until).sort((a, b) => a.at - b.at)[0];
      if (next === undefined) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.time = next.at;
      next.task();
    }
    this.time = until;
  }
}
