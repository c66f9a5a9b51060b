import { describe, expect, it } from 'vitest';
import { bearerTokenOf } from './bearer-token.js';

describe('bearerTokenOf', () => {
  it('reads the token of an Authorization: Bearer header, any case of the scheme', () => {
    expect(bearerTokenOf('Bearer abc.def-ghi_jkl~+/=')).toBe('abc.def-ghi_jkl~+/=');
    expect(bearerTokenOf('bearer  tok')).toBe('tok');
  });

  it('ignores other schemes, empty or malformed values', () => {
    for (const value of [undefined, '', 'Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'Bearer a b', 'Bearer tok"en', `Bearer ${'a'.repeat(20_000)}`]) {
      expect(bearerTokenOf(value), String(value).slice(0, 20)).toBeUndefined();
    }
  });
});
