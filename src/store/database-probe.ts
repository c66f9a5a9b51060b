import type { Queryable } from './db.js';

/** Resolves when the database answers a trivial statement (readiness). */
export async function pingDatabase(db: Queryable): Promise<void> {
  await db.query('SELECT 1');
}
