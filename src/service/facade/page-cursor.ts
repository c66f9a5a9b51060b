/** Opaque keyset cursors: base64url of the last row's (created_at, id). */
import { InvalidArgumentError } from '../../core/errors.js';
import { isStorableTimestamp } from '../../core/text-rules.js';
import type { KeysetPosition } from '../../store/sql/keyset-page.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

export function encodeCursor(position: KeysetPosition): string {
  return Buffer.from(JSON.stringify([position.createdAt, position.id]), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string | undefined): KeysetPosition | null {
  if (cursor === undefined) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2) {
      const [createdAt, id] = value as unknown[];
      if (typeof createdAt === 'string' && TIMESTAMP.test(createdAt) && isStorableTimestamp(createdAt) && typeof id === 'string' && UUID.test(id)) return { createdAt, id };
    }
  } catch {
    // falls through to the typed error below
  }
  throw new InvalidArgumentError('cursor is not a cursor this server issued', [{ path: 'cursor', message: 'malformed cursor' }]);
}

/** Rows were fetched with limit + 1: trims the extra row and derives the next cursor from the last kept one. */
export function pageOf<R>(rows: readonly R[], limit: number, position: (row: R) => KeysetPosition): { rows: R[]; next: string | null } {
  if (rows.length <= limit) return { rows: [...rows], next: null };
  const kept = rows.slice(0, limit);
  const last = kept[kept.length - 1];
  return { rows: kept, next: last === undefined ? null : encodeCursor(position(last)) };
}
