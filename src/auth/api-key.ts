/** API keys: `hy_` + 32 random bytes in base64url. Only the SHA-256 and a short display prefix are stored. */
import { createHash, randomBytes } from 'node:crypto';

/** Every key starts so; it tells a key sent as `Authorization: Bearer` from an OAuth access token. */
export const API_KEY_PREFIX = 'hy_';
const DISPLAY_PREFIX_CHARS = 10;

export function generateApiKey(): string {
  return `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** Hex SHA-256 of the clear key; what the database stores and looks keys up by. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The first characters of a key, enough to recognise it in a listing, far too few to use it. */
export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_CHARS);
}

/** Shape check before any hashing or lookup; anything else is simply unknown. */
export function looksLikeApiKey(key: string): boolean {
  return key.startsWith(API_KEY_PREFIX) && key.length >= 16 && key.length <= 256;
}
