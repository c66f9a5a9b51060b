/**
 * Expiry (docs/expiry.md): when a stored item is forgotten. A store or a source names an instant
 * (`expires_at`) or a lifetime (`ttl_seconds`), or takes its cell type's default retention; an
 * item without any is kept. Pure: the caller gives the instant of the write.
 */
import { CELL_TYPES, type CellType } from './cell-types.js';
import { InvalidArgumentError } from './errors.js';

/** The shortest lifetime: one second. */
export const MIN_TTL_SECONDS = 1;
/** The longest lifetime: 100 years of 365.25 days. */
export const MAX_TTL_SECONDS = 3_155_760_000;

/** What a write may say of its expiry: at most one of the two. */
export interface ExpiryInput {
  readonly expires_at?: string | undefined;
  readonly ttl_seconds?: number | undefined;
}

/** Seconds each cell type is kept when a write names no expiry; a type absent here is kept. */
export type RetentionDefaults = Readonly<Partial<Record<CellType, number>>>;

/**
 * The instant the written item expires, or null when it is kept: the write's own expiry, else the
 * type's default retention. Refuses both fields at once, an instant not in the future, and an
 * instant beyond the longest lifetime — INVALID_ARGUMENT naming the field.
 */
export function expiryOf(input: ExpiryInput, defaultSeconds: number | undefined, now: Date): Date | null {
  if (input.expires_at !== undefined && input.ttl_seconds !== undefined) {
    throw new InvalidArgumentError('send expires_at or ttl_seconds, not both', [{ path: 'ttl_seconds', message: 'send exactly one of expires_at and ttl_seconds' }]);
  }
  if (input.ttl_seconds !== undefined) return secondsAfter(now, input.ttl_seconds, 'ttl_seconds');
  if (input.expires_at !== undefined) {
    const at = new Date(input.expires_at);
    if (at.getTime() <= now.getTime()) {
      throw new InvalidArgumentError(`expires_at ${input.expires_at} is not in the future`, [{ path: 'expires_at', message: 'must be a future instant' }]);
    }
    if (at.getTime() - now.getTime() > MAX_TTL_SECONDS * 1000) {
      throw new InvalidArgumentError(`expires_at ${input.expires_at} is more than 100 years ahead`, [{ path: 'expires_at', message: 'must be at most 100 years ahead' }]);
    }
    return at;
  }
  return defaultSeconds === undefined ? null : secondsAfter(now, defaultSeconds, 'ttl_seconds');
}

function secondsAfter(now: Date, seconds: number, path: string): Date {
  if (!Number.isInteger(seconds) || seconds < MIN_TTL_SECONDS || seconds > MAX_TTL_SECONDS) {
    throw new InvalidArgumentError(`${path} must be a whole number of seconds from ${MIN_TTL_SECONDS} to ${MAX_TTL_SECONDS}`, [{ path, message: 'out of bounds' }]);
  }
  return new Date(now.getTime() + seconds * 1000);
}

const UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3_600, d: 86_400, w: 604_800, y: 31_557_600 };

/**
 * Parses `Type=<n><unit>,…` (units s, m, h, d, w, y; e.g. `Task=30d,Context=12h`) into seconds per
 * cell type. Throws an Error naming the first bad entry: an unknown type, a repeated type, a
 * duration that is not a whole number with a unit, or one outside 1 s – 100 years.
 */
export function parseRetentionDefaults(text: string): RetentionDefaults {
  const defaults: Partial<Record<CellType, number>> = {};
  for (const entry of text.split(',').map((part) => part.trim()).filter((part) => part.length > 0)) {
    const match = /^([A-Za-z]+)\s*=\s*(\d{1,12})([smhdwy])$/.exec(entry);
    if (match === null) throw new Error(`"${entry}" is not Type=<n><unit> (units s, m, h, d, w, y)`);
    const [, type = '', amount = '', unit = ''] = match;
    if (!(CELL_TYPES as readonly string[]).includes(type)) throw new Error(`"${type}" is not a cell type (${CELL_TYPES.join(', ')})`);
    if (defaults[type as CellType] !== undefined) throw new Error(`${type} is given twice`);
    const seconds = Number(amount) * (UNIT_SECONDS[unit] ?? 0);
    if (seconds < MIN_TTL_SECONDS || seconds > MAX_TTL_SECONDS) throw new Error(`${type}=${amount}${unit} is outside 1s – 100y`);
    defaults[type as CellType] = seconds;
  }
  return defaults;
}

/** Whether an item with this expiry (RFC 3339; null or absent: kept) has expired at `nowMs`. */
export function hasExpired(expiresAt: string | null | undefined, nowMs: number): boolean {
  return expiresAt !== null && expiresAt !== undefined && Date.parse(expiresAt) <= nowMs;
}
