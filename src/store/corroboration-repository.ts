/** Reads of corroboration records (written with each reinforcement: restatement-repository.ts). Scoped by tenant_id. */
import type { Corroboration } from '../core/entities.js';
import type { Queryable } from './db.js';
import { isoText } from './sql-time.js';

/** The corroboration records of these cells, oldest first. */
export async function corroborationsOf(q: Queryable, tenantId: string, nodeIds: readonly string[]): Promise<Corroboration[]> {
  if (nodeIds.length === 0) return [];
  const result = await q.query<Corroboration>(
    `SELECT corroboration_id::text AS corroboration_id, node_id::text AS node_id, agent, content, salience, scene_id::text AS scene_id,
       source_ref, metadata, similarity, ${isoText('created_at')} AS created_at
     FROM corroborations WHERE tenant_id = $1 AND node_id = ANY($2::uuid[]) ORDER BY created_at, corroboration_id`,
    [tenantId, nodeIds],
  );
  return result.rows;
}
