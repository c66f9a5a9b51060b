/** Planner statistics. PGlite runs no autovacuum, so without this the planner never learns table sizes. */
import type { Queryable } from './db.js';

/** The tables whose plans depend on size: kNN on the HNSW indexes versus a btree scan and a sort. */
export async function analyzeMemoryTables(q: Queryable): Promise<void> {
  await q.query(`ANALYZE cells, beacons, diffs, inboxes, scenes, sessions`);
}
