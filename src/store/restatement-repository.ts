/** SQL of restatements (src/service/cells/restatement.ts): find the restated cell, record a restatement, read the records. Every statement is scoped by tenant_id. */
import type { CellType } from '../core/cell-types.js';
import type { Corroboration } from '../core/entities.js';
import { cellColumns, type CellRow } from './cell-row.js';
import type { Queryable } from './db.js';
import { isoText } from './sql-time.js';
import { CARRIED_COLUMNS, carriedParams, carriedPlaceholders, type StoreCarried } from './store-carried.js';
import type { VectorParam } from './vector-param.js';

export interface RestatedCell {
  readonly node_id: string;
  readonly content: string;
  /** Cosine similarity to the probe (1 for an identical statement). */
  readonly similarity: number;
  /** The same text as the probe once case, runs of whitespace and closing punctuation are set aside (hyphae_statement_key, migration 0011). */
  readonly identical: boolean;
}

/**
 * The current L0 cell of a project and type that a statement may restate, in one statement: one
 * with the identical text (cells_statement_key index) when there is one, else — when `vector` is
 * given — the nearest on the HNSW index, whose iterative scan (knn-session.ts) keeps the
 * tenant/project/type filter from starving it.
 */
export async function restatedCell(
  q: Queryable,
  where: { readonly tenantId: string; readonly project: string; readonly cellType: CellType; readonly content: string },
  vector: VectorParam | null,
): Promise<RestatedCell | null> {
  // An expiring cell is never restated: the restatement's text would outlive its expiry, or its own store's wish (docs/expiry.md).
  const current = `tenant_id = $1 AND project = $2 AND cell_type = $3 AND layer = 'L0' AND valid_until IS NULL AND expires_at IS NULL`;
  const identical = `SELECT node_id::text AS node_id, content, 1::float8 AS similarity, true AS identical FROM cells
     WHERE ${current} AND hyphae_statement_key(content) = hyphae_statement_key($4) LIMIT 1`;
  const params: unknown[] = [where.tenantId, where.project, where.cellType, where.content];
  const sql =
    vector === null
      ? identical
      : `(${identical}) UNION ALL (SELECT node_id::text, content, (1 - (embedding <=> $5::vector))::float8, false FROM cells
          WHERE ${current} ORDER BY embedding <=> $5::vector LIMIT 1)`;
  const { rows } = await q.query<RestatedCell>(sql, vector === null ? params : [...params, vector]);
  return rows.find((row) => row.identical) ?? rows[0] ?? null;
}

export interface Restatement {
  readonly tenantId: string;
  readonly nodeId: string;
  readonly agent: string;
  /** The restating agent's trust; it raises the cell's only the first time that agent restates it. */
  readonly trust: number;
  readonly now: Date;
  /** What the restating store carried, kept as the restatement's record (table corroborations). */
  readonly record: StoreCarried & {
    readonly corroborationId: string;
    readonly similarity: number;
  };
}

/**
 * Reinforces a current cell with one restatement, and keeps the restatement as a corroboration
 * record of the cell, in one statement: energy's reinforcement time, the corroboration count, the
 * agent among the corroborators and the trust (noisy-or: 1 − (1 − trust)(1 − t)) when the agent is
 * new to it. The author restating its own cell corroborates nothing new. Null when the cell is gone
 * or was superseded meanwhile (and nothing is written).
 */
export async function recordRestatement(q: Queryable, restatement: Restatement): Promise<CellRow | null> {
  const { record } = restatement;
  const result = await q.query<CellRow>(
    `WITH reinforced AS (
       UPDATE cells SET corroborations = corroborations + 1, reinforced_at = $5, updated_at = $5,
         corroborators = CASE WHEN $3 = source_agent OR $3 = ANY(corroborators) THEN corroborators ELSE corroborators || $3::text END,
         trust = CASE WHEN $3 = source_agent OR $3 = ANY(corroborators) THEN trust ELSE 1 - (1 - trust) * (1 - $4::real) END
       WHERE tenant_id = $1 AND node_id = $2 AND valid_until IS NULL AND expires_at IS NULL
       RETURNING *),
     recorded AS (
       INSERT INTO corroborations (corroboration_id, tenant_id, node_id, agent, ${CARRIED_COLUMNS}, similarity, created_at)
       SELECT $6, tenant_id, node_id, $3, ${carriedPlaceholders(7)}, $13, $5 FROM reinforced)
     SELECT ${cellColumns()} FROM reinforced`,
    [
      restatement.tenantId,
      restatement.nodeId,
      restatement.agent,
      restatement.trust,
      restatement.now.toISOString(),
      record.corroborationId,
      ...carriedParams(record),
      record.similarity,
    ],
  );
  return result.rows[0] ?? null;
}

/** Records the idempotency key of a restating store (table reinforcement_keys); false when the agent already used it, for a cell or another restatement (this store is a replay). */
export async function insertRestatementKey(q: Queryable, tenantId: string, agent: string, key: string, nodeId: string, now: Date): Promise<boolean> {
  const result = await q.query(
    `INSERT INTO reinforcement_keys (tenant_id, agent, idempotency_key, node_id, created_at)
     SELECT $1, $2, $3, $4, $5 WHERE NOT EXISTS (SELECT 1 FROM cells WHERE tenant_id = $1 AND source_agent = $2 AND idempotency_key = $3)
     ON CONFLICT (tenant_id, agent, idempotency_key) DO NOTHING`,
    [tenantId, agent, key, nodeId, now.toISOString()],
  );
  return result.rowCount > 0;
}

/** Forgets a restatement key recorded in this transaction for a restatement that did not happen. */
export async function deleteRestatementKey(q: Queryable, tenantId: string, agent: string, key: string): Promise<void> {
  await q.query('DELETE FROM reinforcement_keys WHERE tenant_id = $1 AND agent = $2 AND idempotency_key = $3', [tenantId, agent, key]);
}

/** The records of the restatements of these cells (table corroborations, the wire's `corroborations`), oldest first. */
export async function restatementRecordsOf(q: Queryable, tenantId: string, nodeIds: readonly string[]): Promise<Corroboration[]> {
  if (nodeIds.length === 0) return [];
  const result = await q.query<Corroboration>(
    `SELECT corroboration_id::text AS corroboration_id, node_id::text AS node_id, agent, content, salience, scene_id::text AS scene_id,
       source_ref, metadata, similarity, ${isoText('created_at')} AS created_at
     FROM corroborations WHERE tenant_id = $1 AND node_id = ANY($2::uuid[]) ORDER BY created_at, corroboration_id`,
    [tenantId, nodeIds],
  );
  return result.rows;
}
