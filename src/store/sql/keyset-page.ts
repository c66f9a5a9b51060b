/** One page of a list in a (created_at, id) keyset order, the order every paginated list of the product uses. */
import type { SqlConditions } from './conditions.js';

/** Where the previous page ended: its last row's (created_at, id). */
export interface KeysetPosition {
  readonly createdAt: string;
  readonly id: string;
}

export interface KeysetOrder {
  /** The two columns as the statement names them, e.g. `s.created_at` and `s.scene_id`. */
  readonly createdAt: string;
  readonly id: string;
  readonly direction: 'newest-first' | 'oldest-first';
}

/**
 * Adds the condition "after `after`" to `where` and returns the statement's ORDER BY … LIMIT,
 * which asks for limit + 1 rows: the extra one tells the caller that another page follows.
 */
export function keysetPage(where: SqlConditions, order: KeysetOrder, after: KeysetPosition | null, limit: number): string {
  const [comparison, descending] = order.direction === 'newest-first' ? ['<', ' DESC'] : ['>', ''];
  if (after !== null) {
    where.addRaw(`(${order.createdAt}, ${order.id}) ${comparison} ($${where.bind(after.createdAt)}::timestamptz, $${where.bind(after.id)}::uuid)`);
  }
  return `ORDER BY ${order.createdAt}${descending}, ${order.id}${descending} LIMIT $${where.bind(limit + 1)}`;
}
