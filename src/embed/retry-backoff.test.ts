import { describe, expect, it } from 'vitest';
import { backoffDelayMs, parseRetryAfterMs } from './retry-backoff.js';

describe('retry backoff', () => {
  it('grows exponentially up to the cap, scaled by jitter', () => {
    const options = { baseMs: 100, maxMs: 1000 };
    expect(backoffDelayMs(0, options, () => 1)).toBe(100);
    expect(backoffDelayMs(3, options, () => 1)).toBe(800);
    expect(backoffDelayMs(10, options, () => 1)).toBe(1000);
    expect(backoffDelayMs(3, options, () => 0.5)).toBe(400);
    expect(backoffDelayMs(3, options, () => 0)).toBe(0);
  });

  it('reads Retry-After as seconds or as an HTTP date, and ignores nonsense', () => {
    expect(parseRetryAfterMs('2')).toBe(2000);
    expect(parseRetryAfterMs('0.5')).toBe(500);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfterMs('Thu, 01 Jan 2026 00:00:03 GMT', now)).toBe(3000);
    expect(parseRetryAfterMs('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfterMs(null)).toBeUndefined();
    expect(parseRetryAfterMs('soon')).toBeUndefined();
  });
});
