/**
 * SQL of `hyphae reembed`. New vectors go to a shadow column `embedding_next` beside the live
 * `embedding`, batch by batch (each batch commits, so an interrupted run resumes where it was);
 * once every row has one, a single transaction swaps the columns, rebuilds the HNSW indexes and
 * records the new embedder. Until that commit the database keeps serving its old vectors.
 */
import type { Db, Queryable } from './db.js';
import { SCHEMA_CHANGE, lockMigrations, recordEmbeddingIdentity, type EmbeddingIdentity } from './migrator.js';
import { createVectorIndex, dropVectorIndex } from './vector-indexes.js';

export type ReembedTable = 'cells' | 'beacons' | 'cell_evidence';

/** Each table's id and text columns, and which of its rows can be embedded again (learnt evidence whose query text was not kept cannot). */
const TABLES: Readonly<Record<ReembedTable, { readonly id: string; readonly text: string; readonly embeddable: string }>> = {
  cells: { id: 'node_id', text: 'content', embeddable: 'true' },
  beacons: { id: 'beacon_id', text: 'text', embeddable: 'true' },
  cell_evidence: { id: 'evidence_id', text: 'query_text', embeddable: 'query_text IS NOT NULL' },
};
const REEMBED_TABLES: readonly ReembedTable[] = ['cells', 'beacons', 'cell_evidence'];

const META_TARGET_MODEL = 'reembed_target_model';
const META_TARGET_DIMENSION = 'reembed_target_dimension';

/** The embedder an unfinished re-embed is moving to, if one was started. */
async function readReembedTarget(db: Queryable): Promise<EmbeddingIdentity | undefined> {
  const { rows } = await db.query<{ key: string; value: string }>('SELECT key, value FROM hyphae_meta WHERE key = ANY($1)', [
    [META_TARGET_MODEL, META_TARGET_DIMENSION],
  ]);
  const model = rows.find((row) => row.key === META_TARGET_MODEL)?.value;
  const dimension = rows.find((row) => row.key === META_TARGET_DIMENSION)?.value;
  return model === undefined || dimension === undefined ? undefined : { modelId: model, dimension: Number(dimension) };
}

/**
 * Prepares the shadow columns for `target`. Resuming the same target keeps the vectors already
 * written; a different target (an abandoned run) starts over. Returns whether it resumed.
 */
export async function beginReembed(db: Db, target: EmbeddingIdentity): Promise<boolean> {
  return db.transaction(async (tx) => {
    await lockMigrations(tx);
    const pending = await readReembedTarget(tx);
    const resuming = pending !== undefined && pending.modelId === target.modelId && pending.dimension === target.dimension;
    for (const table of REEMBED_TABLES) {
      if (!resuming) await tx.query(`ALTER TABLE ${table} DROP COLUMN IF EXISTS embedding_next`);
      await tx.query(`ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS embedding_next vector(${target.dimension})`);
    }
    await tx.query('INSERT INTO hyphae_meta (key, value) VALUES ($1, $2), ($3, $4) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value', [
      META_TARGET_MODEL,
      target.modelId,
      META_TARGET_DIMENSION,
      String(target.dimension),
    ]);
    return resuming;
  }, SCHEMA_CHANGE);
}

export interface ReembedCount {
  readonly tenantId: string;
  readonly table: ReembedTable;
  readonly total: number;
  readonly remaining: number;
}

/** Rows per tenant and table, and how many still lack a new vector. */
export async function countReembedWork(db: Queryable): Promise<ReembedCount[]> {
  const counts: ReembedCount[] = [];
  for (const table of REEMBED_TABLES) {
    const { rows } = await db.query<{ tenant_id: string; total: string; remaining: string }>(
      `SELECT tenant_id, count(*) AS total, count(*) FILTER (WHERE embedding_next IS NULL) AS remaining
         FROM ${table} WHERE ${TABLES[table].embeddable} GROUP BY tenant_id ORDER BY tenant_id`,
    );
    for (const row of rows) counts.push({ tenantId: row.tenant_id, table, total: Number(row.total), remaining: Number(row.remaining) });
  }
  return counts;
}

export interface ReembedRow {
  readonly id: string;
  readonly text: string;
}

/** The next rows of one tenant without a new vector, in id order after `afterId`. */
export async function nextRowsToReembed(db: Queryable, table: ReembedTable, tenantId: string, afterId: string | null, limit: number): Promise<ReembedRow[]> {
  const t = TABLES[table];
  const { rows } = await db.query<ReembedRow>(
    `SELECT ${t.id}::text AS id, ${t.text} AS text FROM ${table}
      WHERE tenant_id = $1 AND embedding_next IS NULL AND ${t.embeddable} AND ($2::uuid IS NULL OR ${t.id} > $2::uuid)
      ORDER BY ${t.id} LIMIT $3`,
    [tenantId, afterId, limit],
  );
  return rows;
}

/** Writes new vectors (pgvector text) for rows of one tenant; rows deleted meanwhile are skipped. */
export async function writeReembedded(db: Db, table: ReembedTable, tenantId: string, rows: readonly { id: string; vector: string }[]): Promise<number> {
  const t = TABLES[table];
  const result = await db.query(
    `UPDATE ${table} AS r SET embedding_next = u.v::vector
       FROM unnest($2::uuid[], $3::text[]) AS u(id, v)
      WHERE r.tenant_id = $1 AND r.${t.id} = u.id`,
    [tenantId, rows.map((row) => row.id), rows.map((row) => row.vector)],
  );
  return result.rowCount;
}

/**
 * Swaps the shadow columns in, rebuilds the HNSW indexes and records `target`, in one transaction
 * holding the tables exclusively. Returns false (changing nothing) when rows written meanwhile still lack a vector.
 */
export async function finishReembed(db: Db, target: EmbeddingIdentity): Promise<boolean> {
  return db.transaction(async (tx) => {
    await lockMigrations(tx);
    await tx.query('LOCK TABLE cells, beacons, cell_evidence IN ACCESS EXCLUSIVE MODE');
    // Evidence without its query's text has no vector of the new model, and one of the old cannot be compared with the new cells: it goes.
    await tx.query('DELETE FROM cell_evidence WHERE embedding_next IS NULL');
    for (const table of REEMBED_TABLES) {
      const { rows } = await tx.query<{ missing: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${table} WHERE embedding_next IS NULL) AS missing`);
      if (rows[0]?.missing === true) return false;
    }
    for (const table of REEMBED_TABLES) {
      await dropVectorIndex(tx, table);
      await tx.query(`ALTER TABLE ${table} DROP COLUMN embedding`);
      await tx.query(`ALTER TABLE ${table} RENAME COLUMN embedding_next TO embedding`);
      await tx.query(`ALTER TABLE ${table} ALTER COLUMN embedding SET NOT NULL`);
      await createVectorIndex(tx, table, target.modelId);
    }
    await recordEmbeddingIdentity(tx, target);
    await tx.query('DELETE FROM hyphae_meta WHERE key = ANY($1)', [[META_TARGET_MODEL, META_TARGET_DIMENSION]]);
    return true;
  }, SCHEMA_CHANGE);
}
