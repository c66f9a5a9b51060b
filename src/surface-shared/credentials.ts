/**
 * The caller's credential as every surface reads it: the API key in the `x-hyphae-key` header (gRPC
 * metadata of the same name), resolved by the facade on each call.
 */
import { createHash } from 'node:crypto';

export const API_KEY_HEADER = 'x-hyphae-key';
/** Longer values are refused before any lookup: no key is that long. */
export const MAX_API_KEY_CHARS = 512;

/** The key a header value carries, trimmed; undefined when absent, empty, repeated or too long. */
export function apiKeyOf(value: string | readonly string[] | null | undefined): string | undefined {
  if (typeof value !== 'string') return undefined;
  const key = value.trim();
  return key === '' || key.length > MAX_API_KEY_CHARS ? undefined : key;
}

/** A key as rate limiters hold it: hashed, so their memory never holds a clear key. */
export function apiKeyDigest(key: string): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 32);
}
