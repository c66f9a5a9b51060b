/**
 * Planner statistics and dead-row cleanup for the memory tables. PGlite runs no autovacuum, so
 * without these the planner never learns table sizes and no dead row is ever freed.
 */
import type { Queryable } from './db.js';

/** The tables whose plans depend on size (kNN on the HNSW indexes versus a btree scan and a sort), cell_tenant_terms, whose statistics weigh lexical recall's terms, the relations and learnt evidence a subgraph walk and a learning recall probe by index, and the recall log, written by every recall and trimmed by retention. */
const MEMORY_TABLES = ['cells', 'cell_tenant_terms', 'corroborations', 'beacons', 'diffs', 'inboxes', 'scenes', 'sessions', 'cell_relations', 'cell_evidence', 'recall_requests'] as const;

/** The names among `names` that are memory tables: only those are ever spliced into a statement. */
function memoryTablesAmong(names: readonly string[]): string[] {
  return names.filter((name) => (MEMORY_TABLES as readonly string[]).includes(name));
}

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
  return memoryTablesAmong(result.rows.map((row) => row.relname));
}

/** ANALYZE of some memory tables (names from grownMemoryTables only: they are spliced into the statement). */
export async function analyzeTables(q: Queryable, tables: readonly string[]): Promise<void> {
  const known = memoryTablesAmong(tables);
  if (known.length > 0) await q.query(`ANALYZE ${known.join(', ')}`);
}

/**
 * The memory tables with more dead rows than 50 plus a fifth of their live ones — autovacuum's
 * rule. The cumulative statistics are flushed first: a single-session engine only writes them out
 * at a later transaction's end.
 */
export async function tablesWithDeadRows(q: Queryable): Promise<string[]> {
  await q.query(`SELECT pg_stat_force_next_flush()`);
  const result = await q.query<{ relname: string }>(
    `SELECT relname::text AS relname FROM pg_stat_user_tables
     WHERE relname = ANY($1::text[]) AND n_dead_tup > 50 + 0.2 * n_live_tup`,
    [MEMORY_TABLES],
  );
  return memoryTablesAmong(result.rows.map((row) => row.relname));
}

/** The memory tables with an HNSW index, whose index cleanup is costly. */
const HNSW_TABLES: readonly string[] = ['cells', 'beacons', 'cell_evidence'];

/**
 * VACUUM of some memory tables (names from tablesWithDeadRows only: they are spliced into the
 * statement). The tables with an HNSW index are vacuumed without index cleanup: their heap's dead
 * rows are freed for reuse in milliseconds, and the indexes keep entries for them that every scan
 * skips. Cleaning those indexes makes pgvector repair its graph around each deleted cell, which
 * took 3.8 s of PGlite's single thread at 10k cells after 1% of them were deleted. The others
 * (diffs, inboxes, sessions, scenes: created and drained all day) get a whole VACUUM, so their
 * btree indexes reuse the space of what was deleted instead of growing with every drain.
 */
/** Every memory table, as vacuumTables does it (the embedded start: statistics do not survive a restart). */
export async function vacuumMemoryTables(q: Queryable): Promise<void> {
  await vacuumTables(q, MEMORY_TABLES);
}

export async function vacuumTables(q: Queryable, tables: readonly string[]): Promise<void> {
  const known = memoryTablesAmong(tables);
  const graphs = known.filter((name) => HNSW_TABLES.includes(name));
  const plain = known.filter((name) => !HNSW_TABLES.includes(name));
  if (graphs.length > 0) await q.query(`VACUUM (INDEX_CLEANUP OFF) ${graphs.join(', ')}`);
  if (plain.length > 0) await q.query(`VACUUM ${plain.join(', ')}`);
}

/** The tables an erasure deletes from besides the memory tables; their dead rows hold erased text too. */
const ERASURE_TABLES = ['recall_feedback', 'reinforcement_keys', 'resource_subscriptions', 'sources', 'source_ingestions', 'source_chunk_drafts'] as const;

/**
 * After a large erasure (docs/forgetting.md): VACUUM of every table it deleted from, the HNSW
 * indexes included — their entries for the erased cells (the embeddings) go too, which the routine
 * pass skips for cost — so the erased rows' space is freed and reused now rather than whenever the
 * dead-row rule (or autovacuum) next fires.
 */
export async function vacuumAfterErasure(q: Queryable): Promise<void> {
  await q.query(`VACUUM ${[...new Set([...MEMORY_TABLES, ...ERASURE_TABLES])].join(', ')}`);
}
