import { describe, expect, it } from 'vitest';
import { MAX_API_KEY_CHARS, apiKeyOf, credentialDigest, credentialOf } from './credentials.js';

describe('apiKeyOf', () => {
  it('reads a key, trimmed', () => {
    expect(apiKeyOf('hy_abc')).toBe('hy_abc');
    expect(apiKeyOf(' hy_abc\t')).toBe('hy_abc');
  });

  it.each([undefined, null, '', '   ', 'k'.repeat(MAX_API_KEY_CHARS + 1), ['hy_a', 'hy_b']])('refuses %j', (value) => {
    expect(apiKeyOf(value)).toBeUndefined();
  });
});

describe('credentialOf', () => {
  it('takes the API key first, else a bearer token', () => {
    expect(credentialOf('hy_abc', 'Bearer tok')).toEqual({ kind: 'api-key', key: 'hy_abc' });
    expect(credentialOf(undefined, 'Bearer eyJ.abc.def')).toEqual({ kind: 'bearer', token: 'eyJ.abc.def' });
    expect(credentialOf(null, 'Basic dXNlcg==')).toBeUndefined();
    expect(credentialOf(undefined, ['Bearer a', 'Bearer b'])).toBeUndefined();
    expect(credentialOf(undefined, undefined)).toBeUndefined();
  });
});

describe('credentialDigest', () => {
  it('is stable, short and never the credential itself', () => {
    const key = { kind: 'api-key', key: 'hy_abc' } as const;
    expect(credentialDigest(key)).toBe(credentialDigest({ kind: 'api-key', key: 'hy_abc' }));
    expect(credentialDigest(key)).not.toBe(credentialDigest({ kind: 'api-key', key: 'hy_abd' }));
    expect(credentialDigest(key)).toHaveLength(32);
    expect(credentialDigest(key)).not.toContain('hy_abc');
    expect(credentialDigest({ kind: 'bearer', token: 'eyJ.abc.def' })).not.toContain('eyJ');
  });
});
