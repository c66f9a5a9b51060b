/**
 * Calls per API key per window, the gRPC counterpart of REST's per-key rate limit
 * (docs/security.md): a fixed window per key id (an access token's is derived from its verified
 * issuer, tenant and agent), bounded memory (the oldest windows are
 * forgotten first).
 */
export interface CallRateLimiterOptions {
  readonly max: number;
  readonly windowMs: number;
  readonly maxKeys?: number;
  readonly clock?: () => number;
}

export class CallRateLimiter {
  private readonly windows = new Map<string, { readonly startedAt: number; calls: number }>();
  private readonly maxKeys: number;
  private readonly clock: () => number;

  constructor(private readonly options: CallRateLimiterOptions) {
    this.maxKeys = options.maxKeys ?? 10_000;
    this.clock = options.clock ?? Date.now;
  }

  /** Counts one call; returns the seconds until the key may call again when it is over its limit, else null. */
  take(key: string): number | null {
    const now = this.clock();
    let window = this.windows.get(key);
    if (window !== undefined && now - window.startedAt >= this.options.windowMs) {
      this.windows.delete(key);
      window = undefined;
    }
    if (window === undefined) {
      if (this.windows.size >= this.maxKeys) {
        const oldest = this.windows.keys().next();
        if (oldest.done !== true) this.windows.delete(oldest.value);
      }
      window = { startedAt: now, calls: 0 };
      this.windows.set(key, window);
    }
    if (window.calls >= this.options.max) return Math.max(1, Math.ceil((window.startedAt + this.options.windowMs - now) / 1000));
    window.calls += 1;
    return null;
  }
}
