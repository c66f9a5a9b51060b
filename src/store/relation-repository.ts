/** SQL for explicit relations between cells (migration 0016, docs/relations.md). Every statement is scoped by tenant_id. */
import type { Relation, RelationInput } from '../core/relation-schemas.js';
import type { Queryable } from './db.js';

/**
 * The cells among `nodeIds` of the tenant that lie in `projects` (null: every project), each with
 * a FOR SHARE lock so none is deleted before the transaction that relates to it commits.
 */
export async function readableCellIds(q: Queryable, tenantId: string, nodeIds: readonly string[], projects: readonly string[] | null): Promise<Set<string>> {
  if (nodeIds.length === 0) return new Set();
  const result = await q.query<{ node_id: string }>(
    `SELECT node_id::text AS node_id FROM cells
     WHERE tenant_id = $1 AND node_id = ANY($2::uuid[]) AND ($3::text[] IS NULL OR project = ANY($3::text[]))
     ORDER BY node_id FOR SHARE`,
    [tenantId, nodeIds, projects],
  );
  return new Set(result.rows.map((row) => row.node_id));
}

/** Serialises the transactions that add relations from one cell until commit, so each counts the others against the bound. */
export async function lockRelationsFrom(q: Queryable, fromNodeId: string): Promise<void> {
  await q.query("SELECT pg_advisory_xact_lock(hashtextextended('cell_relations:' || $1, 0))", [fromNodeId]);
}

/** How many relations the cell declares. */
export async function countRelationsFrom(q: Queryable, tenantId: string, fromNodeId: string): Promise<number> {
  const result = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM cell_relations WHERE tenant_id = $1 AND from_node_id = $2', [tenantId, fromNodeId]);
  return result.rows[0]?.n ?? 0;
}

/** Adds relations from one cell; one that already exists is kept as it is. Returns those added. */
export async function insertRelations(
  q: Queryable,
  tenantId: string,
  fromNodeId: string,
  relations: readonly RelationInput[],
  createdBy: string,
  now: Date,
): Promise<Relation[]> {
  if (relations.length === 0) return [];
  const result = await q.query<Relation>(
    `INSERT INTO cell_relations (tenant_id, from_node_id, to_node_id, relation_type, created_by, created_at)
     SELECT $1, $2::uuid, r.to_node_id, r.relation_type, $4, $5
     FROM jsonb_to_recordset($3::jsonb) AS r(to_node_id uuid, relation_type text)
     ON CONFLICT (from_node_id, to_node_id, relation_type) DO NOTHING
     RETURNING from_node_id::text AS "from", to_node_id::text AS "to", relation_type AS type`,
    [tenantId, fromNodeId, JSON.stringify(relations.map((r) => ({ to_node_id: r.to, relation_type: r.type }))), createdBy, now.toISOString()],
  );
  return result.rows;
}

/** Deletes one relation; false when the cell declares no such relation. */
export async function deleteRelation(q: Queryable, tenantId: string, fromNodeId: string, relation: RelationInput): Promise<boolean> {
  const result = await q.query(
    'DELETE FROM cell_relations WHERE tenant_id = $1 AND from_node_id = $2 AND to_node_id = $3 AND relation_type = $4',
    [tenantId, fromNodeId, relation.to, relation.type],
  );
  return result.rowCount > 0;
}

/** The relations the cell declares to cells in `projects` (null: every project), oldest first. */
export async function relationsFrom(q: Queryable, tenantId: string, fromNodeId: string, projects: readonly string[] | null): Promise<Relation[]> {
  const result = await q.query<Relation>(
    `SELECT r.from_node_id::text AS "from", r.to_node_id::text AS "to", r.relation_type AS type
     FROM cell_relations r JOIN cells c ON c.node_id = r.to_node_id AND c.tenant_id = $1
     WHERE r.tenant_id = $1 AND r.from_node_id = $2 AND ($3::text[] IS NULL OR c.project = ANY($3::text[]))
     ORDER BY r.created_at, r.to_node_id, r.relation_type`,
    [tenantId, fromNodeId, projects],
  );
  return result.rows;
}
