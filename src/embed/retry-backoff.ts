export interface BackoffOptions {
  readonly baseMs: number;
  readonly maxMs: number;
}

/** Full-jitter exponential backoff: a random wait in [0, min(max, base·2^attempt)], so retrying clients spread out. */
export function backoffDelayMs(attempt: number, options: BackoffOptions, random: () => number = Math.random): number {
  return Math.round(random() * Math.min(options.maxMs, options.baseMs * 2 ** attempt));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * `Retry-After` as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable.
 * Never negative.
 */
export function parseRetryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const trimmed = header.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
