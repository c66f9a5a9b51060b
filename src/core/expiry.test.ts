import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from './errors.js';
import { expiryOf, hasExpired, MAX_TTL_SECONDS, parseRetentionDefaults } from './expiry.js';

const NOW = new Date('2026-01-01T00:00:00Z');

describe('expiryOf', () => {
  it('takes a lifetime, an instant, else the type default, else keeps', () => {
    expect(expiryOf({ ttl_seconds: 2 }, 60, NOW)?.toISOString()).toBe('2026-01-01T00:00:02.000Z');
    expect(expiryOf({ expires_at: '2026-02-01T00:00:00+01:00' }, 60, NOW)?.toISOString()).toBe('2026-01-31T23:00:00.000Z');
    expect(expiryOf({}, 60, NOW)?.toISOString()).toBe('2026-01-01T00:01:00.000Z');
    expect(expiryOf({}, undefined, NOW)).toBeNull();
  });

  it.each([
    [{ ttl_seconds: 2, expires_at: '2027-01-01T00:00:00Z' }, 'ttl_seconds'],
    [{ expires_at: '2026-01-01T00:00:00Z' }, 'expires_at'],
    [{ expires_at: '2200-01-01T00:00:00Z' }, 'expires_at'],
    [{ ttl_seconds: 0 }, 'ttl_seconds'],
    [{ ttl_seconds: MAX_TTL_SECONDS + 1 }, 'ttl_seconds'],
  ])('refuses %j naming %s', (input, field) => {
    let caught: unknown;
    try {
      expiryOf(input, undefined, NOW);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidArgumentError);
    expect((caught as InvalidArgumentError).issues.map((i) => i.path)).toEqual([field]);
  });
});

describe('parseRetentionDefaults', () => {
  it('reads Type=<n><unit> pairs', () => {
    expect(parseRetentionDefaults(' Task=30d, Context=12h ,Fact=1y,Risk=90s,Lesson=2w,Pattern=5m')).toEqual({
      Task: 2_592_000,
      Context: 43_200,
      Fact: 31_557_600,
      Risk: 90,
      Lesson: 1_209_600,
      Pattern: 300,
    });
    expect(parseRetentionDefaults('')).toEqual({});
  });

  it.each([
    ['Tsk=30d', /not a cell type/],
    ['Task=30', /Type=<n><unit>/],
    ['Task=30d,Task=1d', /twice/],
    ['Task=0s', /outside/],
    ['Task=101y', /outside/],
  ])('refuses %s', (text, message) => {
    expect(() => parseRetentionDefaults(text)).toThrow(message);
  });
});

describe('hasExpired', () => {
  it('is true from the instant on, never for a kept item', () => {
    expect(hasExpired('2026-01-01T00:00:00Z', NOW.getTime())).toBe(true);
    expect(hasExpired('2026-01-01T00:00:01Z', NOW.getTime())).toBe(false);
    expect(hasExpired(null, NOW.getTime())).toBe(false);
    expect(hasExpired(undefined, NOW.getTime())).toBe(false);
  });
});
