import { describe, expect, it } from 'vitest';
import { MAX_API_KEY_CHARS, apiKeyDigest, apiKeyOf } from './credentials.js';

describe('apiKeyOf', () => {
  it('reads a key, trimmed', () => {
    expect(apiKeyOf('hy_abc')).toBe('hy_abc');
    expect(apiKeyOf(' hy_abc\t')).toBe('hy_abc');
  });

  it.each([undefined, null, '', '   ', 'k'.repeat(MAX_API_KEY_CHARS + 1), ['hy_a', 'hy_b']])('refuses %j', (value) => {
    expect(apiKeyOf(value)).toBeUndefined();
  });
});

describe('apiKeyDigest', () => {
  it('is stable, short and never the key itself', () => {
    expect(apiKeyDigest('hy_abc')).toBe(apiKeyDigest('hy_abc'));
    expect(apiKeyDigest('hy_abc')).not.toBe(apiKeyDigest('hy_abd'));
    expect(apiKeyDigest('hy_abc')).toHaveLength(32);
    expect(apiKeyDigest('hy_abc')).not.toContain('hy_abc');
  });
});
