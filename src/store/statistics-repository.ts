/** Planner statistics. PGlite runs no autovacuum, so without this the planner never learns table sizes. */
import type { Queryable } from './db.js';

/** The tables whose plans depend on size: kNN on the HNSW indexes versus a btree scan and a sort. */
const MEMORY_TABLES = ['cells', 'beacons', 'diffs', 'inboxes', 'scenes', 'sessions'] as const;

export async function analyzeMemoryTables(q: Queryable): Promise<void> {
  await q.query(`ANALYZE ${MEMORY_TABLES.join(', ')}`);
}

/**
 * The memory tables whose heap grew by more than a tenth (and four pages) since their statistics
 * were taken — autovacuum's rule of thumb. One catalog read; the sizes come from the files. The
 * size test is on the names' side of the join, so only the memory tables' files are measured:
 * written as a filter of pg_class it measured every relation's file and took 15–25 ms of PGlite's
 * single thread every check, against 1–2 ms.
 */
export async function grownMemoryTables(q: Queryable): Promise<string[]> {
  const result = await q.query<{ relname: string }>(
    `SELECT c.relname::text AS relname
     FROM unnest($1::text[]) AS t(name)
     CROSS JOIN LATERAL (SELECT relname, relpages FROM pg_class WHERE oid = to_regclass(t.name)) c
     WHERE pg_relation_size(to_regclass(t.name)) > (c.relpages * 1.1 + 4) * current_setting('block_size')::bigint`,
    [MEMORY_TABLES],
  );
  return result.rows.map((row) => row.relname).filter((name) => (MEMORY_TABLES as readonly string[]).includes(name));
}

/** ANALYZE of some memory tables (names from grownMemoryTables only: they are spliced into the statement). */
export async function analyzeTables(q: Queryable, tables: readonly string[]): Promise<void> {
  const known = tables.filter((name) => (MEMORY_TABLES as readonly string[]).includes(name));
  if (known.length > 0) await q.query(`ANALYZE ${known.join(', ')}`);
}
