/**
 * Failed authentication limited per client address, before any database work (docs/security.md);
 * the HTTP and gRPC ports share one, so one budget covers both. The per-key limiter cannot do it:
 * made-up keys each get a fresh bucket. Here every 401 counts against the address that caused it;
 * once an address has `max` failures in the window, its requests are refused with 429 at the first
 * hook, so guessing keys never reaches the database. Memory is bounded: at most `maxAddresses`
 * windows, the oldest forgotten first.
 */
export interface FailedAuthLimiterOptions {
  readonly max: number;
  readonly windowMs: number;
  readonly maxAddresses?: number;
  readonly clock?: () => number;
}

interface Window {
  readonly startedAt: number;
  failures: number;
}

export class FailedAuthLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly maxAddresses: number;
  private readonly clock: () => number;

  constructor(private readonly options: FailedAuthLimiterOptions) {
    this.maxAddresses = options.maxAddresses ?? 10_000;
    this.clock = options.clock ?? Date.now;
  }

  /** Seconds until the address may try again, or null when it may try now. */
  retryAfterSeconds(address: string): number | null {
    const window = this.current(address);
    if (window === undefined || window.failures < this.options.max) return null;
    return Math.max(1, Math.ceil((window.startedAt + this.options.windowMs - this.clock()) / 1000));
  }

  recordFailure(address: string): void {
    const window = this.current(address);
    if (window !== undefined) {
      window.failures += 1;
      return;
    }
    if (this.windows.size >= this.maxAddresses) {
      const oldest = this.windows.keys().next();
      if (oldest.done !== true) this.windows.delete(oldest.value);
    }
    this.windows.set(address, { startedAt: this.clock(), failures: 1 });
  }

  private current(address: string): Window | undefined {
    const window = this.windows.get(address);
    if (window === undefined) return undefined;
    if (this.clock() - window.startedAt < this.options.windowMs) return window;
    this.windows.delete(address);
    return undefined;
  }
}
