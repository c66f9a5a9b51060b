/** The clock live streams and the channel pace by: the system's, or a hand clock in tests. */
export interface StreamClock {
  now(): number;
  /** Runs `task` after `delayMs`; the returned function cancels it. */
  after(delayMs: number, task: () => void): () => void;
}

export const SYSTEM_CLOCK: StreamClock = {
  now: () => Date.now(),
  after(delayMs, task) {
    const timer = setTimeout(task, delayMs);
    // A timer alone never keeps the process up: an open stream's socket does.
    timer.unref();
    return () => clearTimeout(timer);
  },
};
