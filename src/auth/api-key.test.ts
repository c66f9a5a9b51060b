import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { displayPrefix, generateApiKey, hashApiKey, looksLikeApiKey } from './api-key.js';

describe('API keys', () => {
  it('are hy_ plus 32 random bytes in base64url, all different', () => {
    const keys = new Set(Array.from({ length: 50 }, generateApiKey));
    expect(keys.size).toBe(50);
    for (const key of keys) {
      expect(key).toMatch(/^hy_[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(key.slice(3), 'base64url')).toHaveLength(32);
      expect(looksLikeApiKey(key)).toBe(true);
    }
  });

  it('hash to hex SHA-256 and show only a short prefix', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
    expect(displayPrefix(key)).toBe(key.slice(0, 10));
    expect(looksLikeApiKey('sk-something-else-entirely')).toBe(false);
  });
});
