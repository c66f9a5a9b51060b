/** Planner statistics. PGlite runs no autovacuum, so without this the planner never learns table sizes. */
import type { Queryable } from './db.js';

/** The tables whose plans depend on size: kNN on the HNSW indexes versus a btree scan and a sort. */
const MEMORY_TABLES = ['cells', 'beacons', 'diffs', 'inboxes', 'scenes', 'sessions'] as const;

export async function analyzeMemoryTables(q: Queryable): Promise<void> {
  await q.query(`ANALYZE ${MEMORY_TABLES.join(', ')}`);
}

/**
 * The memory tables whose heap grew by more than a tenth (and four pages) since their statistics
 * were taken — autovacuum's rule of thumb. One catalog read; the sizes come from the files.
 */
export async function grownMemoryTables(q: Queryable): Promise<string[]> {
  const result = await q.query<{ relname: string }>(
    `SELECT relname::text AS relname FROM pg_class
     WHERE oid IN (SELECT to_regclass(t) FROM unnest($1::text[]) AS t)
       AND pg_relation_size(oid) > (relpages * 1.1 + 4) * current_setting('block_size')::bigint`,
    [MEMORY_TABLES],
  );
  return result.rows.map((row) => row.relname).filter((name) => (MEMORY_TABLES as readonly string[]).includes(name));
}

/** ANALYZE of some memory tables (names from grownMemoryTables only: they are spliced into the statement). */
export async function analyzeTables(q: Queryable, tables: readonly string[]): Promise<void> {
  const known = tables.filter((name) => (MEMORY_TABLES as readonly string[]).includes(name));
  if (known.length > 0) await q.query(`ANALYZE ${known.join(', ')}`);
}
