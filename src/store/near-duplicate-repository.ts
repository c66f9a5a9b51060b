/** SQL of near-duplicate reinforcement (src/service/near-duplicate-reinforcement.ts). Every statement is scoped by tenant_id. */
import type { CellType } from '../core/cell-types.js';
import { cellColumns, type CellRow } from './cell-row.js';
import type { Queryable } from './db.js';
import type { VectorParam } from './vector-param.js';

export interface NearestCurrentCell {
  readonly node_id: string;
  readonly content: string;
  /** Cosine similarity to the probe. */
  readonly similarity: number;
}

/**
 * The current L0 cell of a project and type nearest to `vector`, on the HNSW index. The session's
 * iterative scan (src/store/knn-session.ts) keeps the tenant/project/type filter from starving it.
 */
export async function nearestCurrentCell(
  q: Queryable,
  where: { readonly tenantId: string; readonly project: string; readonly cellType: CellType },
  vector: VectorParam,
): Promise<NearestCurrentCell | null> {
  const result = await q.query<NearestCurrentCell>(
    `SELECT node_id::text AS node_id, content, (1 - (embedding <=> $1::vector))::float8 AS similarity FROM cells
     WHERE tenant_id = $2 AND project = $3 AND cell_type = $4 AND layer = 'L0' AND valid_until IS NULL
     ORDER BY embedding <=> $1::vector LIMIT 1`,
    [vector, where.tenantId, where.project, where.cellType],
  );
  return result.rows[0] ?? null;
}

export interface Restatement {
  readonly tenantId: string;
  readonly nodeId: string;
  readonly agent: string;
  /** The restating agent's trust; it raises the cell's only the first time that agent restates it. */
  readonly trust: number;
  readonly now: Date;
}

/**
 * Reinforces a current cell with one restatement: energy's reinforcement time, the corroboration
 * count, the agent among the corroborators and the trust (noisy-or: 1 − (1 − trust)(1 − t)) when
 * the agent is new to it. The author restating its own cell corroborates nothing new. Null when the
 * cell is gone or was superseded meanwhile.
 */
export async function reinforceCell(q: Queryable, restatement: Restatement): Promise<CellRow | null> {
  const result = await q.query<CellRow>(
    `UPDATE cells SET corroborations = corroborations + 1, reinforced_at = $5, updated_at = $5,
       corroborators = CASE WHEN $3 = source_agent OR $3 = ANY(corroborators) THEN corroborators ELSE corroborators || $3::text END,
       trust = CASE WHEN $3 = source_agent OR $3 = ANY(corroborators) THEN trust ELSE 1 - (1 - trust) * (1 - $4::real) END
     WHERE tenant_id = $1 AND node_id = $2 AND valid_until IS NULL
     RETURNING ${cellColumns()}`,
    [restatement.tenantId, restatement.nodeId, restatement.agent, restatement.trust, restatement.now.toISOString()],
  );
  return result.rows[0] ?? null;
}

/** Records the key of a reinforcing store; false when the agent's key is already taken (a concurrent replay won). */
export async function insertReinforcementKey(q: Queryable, tenantId: string, agent: string, key: string, nodeId: string, now: Date): Promise<boolean> {
  const result = await q.query(
    `INSERT INTO reinforcement_keys (tenant_id, agent, idempotency_key, node_id, created_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (tenant_id, agent, idempotency_key) DO NOTHING`,
    [tenantId, agent, key, nodeId, now.toISOString()],
  );
  return result.rowCount > 0;
}
