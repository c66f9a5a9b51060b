import { describe, expect, it } from 'vitest';
import { TtlCache } from './ttl-cache.js';

describe('TtlCache', () => {
  it('expires entries after the TTL (on the injected clock)', () => {
    let now = 1_000;
    const cache = new TtlCache<string>(10, 5_000, () => now);
    cache.set('k', 'v');
    now += 4_999;
    expect(cache.get('k')).toBe('v');
    now += 1;
    expect(cache.get('k')).toBeUndefined();
  });

  it('evicts the least recently used entry beyond its capacity', () => {
    const cache = new TtlCache<number>(2, 60_000);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
  });

  it('deletes by predicate (a revoked key id)', () => {
    const cache = new TtlCache<{ keyId: string }>(10, 60_000);
    cache.set('h1', { keyId: 'k1' });
    cache.set('h2', { keyId: 'k2' });
    cache.deleteWhere((v) => v.keyId === 'k1');
    expect(cache.get('h1')).toBeUndefined();
    expect(cache.get('h2')).toEqual({ keyId: 'k2' });
  });
});
