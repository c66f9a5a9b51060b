import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../core/errors.js';
import { decodeCursor, encodeCursor, pageOf } from './page-cursor.js';

const POSITION = { createdAt: '2026-12-02T10:56:41.740123Z', id: '7d1f0a3c-1b1e-4f4e-9a3c-2f1d0a3c1b1e' };

describe('page cursors', () => {
  it('round-trip a keyset position through an opaque base64url string', () => {
    const cursor = encodeCursor(POSITION);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toEqual(POSITION);
    expect(decodeCursor(undefined)).toBeNull();
  });

  it.each(['', 'garbage', Buffer.from('[1,2]').toString('base64url'), Buffer.from('["x","y"]').toString('base64url')])(
    'refuse %j as INVALID_ARGUMENT naming cursor',
    (cursor) => {
      expect(() => decodeCursor(cursor)).toThrow(InvalidArgumentError);
      try {
        decodeCursor(cursor);
      } catch (error) {
        expect((error as InvalidArgumentError).issues[0]?.path).toBe('cursor');
      }
    },
  );

  it('trim the extra row and point the next cursor at the last kept one', () => {
    const rows = [1, 2, 3].map((n) => ({ createdAt: POSITION.createdAt, id: POSITION.id.replace(/.$/, String(n)) }));
    const page = pageOf(rows, 2, (r) => r);
    expect(page.rows).toHaveLength(2);
    expect(decodeCursor(page.next ?? undefined)).toEqual(rows[1]);
    expect(pageOf(rows, 3, (r) => r).next).toBeNull();
  });
});
