/**
 * The idempotency-key namespace an import writes (docs/export-format.md): a client's key may not
 * start with it, so an imported cell can never answer — and swallow — a live store.
 */
export const IMPORTED_KEY_PREFIX = 'imported:';

export const RESERVED_KEY_MESSAGE = `must not start with "${IMPORTED_KEY_PREFIX}", the prefix reserved for imported keys`;

/** True when a client may send this idempotency key: it is outside the imported namespace. */
export function isClientIdempotencyKey(key: string): boolean {
  return !key.startsWith(IMPORTED_KEY_PREFIX);
}
