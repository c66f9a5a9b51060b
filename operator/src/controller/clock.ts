// Time as the controllers see it. Injected so tests can drive backoff and lease expiry step by
// step (see manual-clock.ts) instead of sleeping and measuring wall time.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Run `fn` once after `delayMs`; the returned function cancels it. */
  after(delayMs: number, fn: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  after: (delayMs, fn) => {
    const timer = setTimeout(fn, delayMs);
    return () => clearTimeout(timer);
  },
};
