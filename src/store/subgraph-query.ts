/**
 * The subgraph around one cell (docs/relations.md): a breadth-first walk over explicit relations
 * and the implicit edges derived from what the schema records, in ONE statement
 * (src/store/subgraph-statement.ts), and recall's one-hop graph context. Nodes are keyed as text
 * (src/store/graph-keys.ts).
 */
import { liveRow } from './cell-conditions.js';
import type { Db, Queryable } from './db.js';
import { idOf, sourceId, sourceProject, uuidOf, visible } from './graph-keys.js';
import { SUBGRAPH_SQL } from './subgraph-statement.js';

export interface SubgraphRequest {
  readonly tenantId: string;
  /** The projects the caller may read; null: every project of the tenant. */
  readonly projects: readonly string[] | null;
  readonly startNodeId: string;
  readonly depth: number;
  readonly maxMembers: number;
  /** Only edges of these types are walked and answered; null: every type. */
  readonly relationTypes: readonly string[] | null;
  readonly previewChars: number;
  /** The instant whose declared relations are walked: declared by then and not ended. */
  readonly at: Date;
}

export interface SubgraphMemberRow {
  readonly kind: 'cell' | 'scene' | 'session' | 'source' | 'corroboration';
  readonly id: string;
  readonly project: string | null;
  readonly cell_type: string | null;
  readonly preview: string | null;
  readonly depth: number;
  readonly discovered_relation: string | null;
  readonly discovered_via: string | null;
}

export interface SubgraphRows {
  readonly members: SubgraphMemberRow[];
  readonly relations: { from: string; to: string; type: string }[];
  readonly truncated: boolean;
}

/**
 * Every edge touching the nodes of `frontier` (a FROM item aliased f, with columns key and pos): the frontier
 * node (via) and its position, the edge as from/to keys and type, and the node at the other end
 * with the tenant and project that decide whether the caller may read it. Every lookup from a key is a
 * LATERAL subquery the planner cannot flatten (OFFSET 0): an index probe per key, never a scan of cells.
 */
function edgesOf(frontier: string, at: string): string {
  const held = `r.created_at <= ${at} AND (r.valid_until IS NULL OR r.valid_until > ${at})`;
  const cellKey = (alias: string): string => `'cell:' || ${alias}.node_id`;
  return `
    SELECT f.pos, f.key AS via, e.from_key, e.to_key, e.type, e.other, e.other_tenant, e.other_project
    FROM ${frontier}
    CROSS JOIN LATERAL (SELECT * FROM cells c0 WHERE c0.node_id = ${uuidOf('f.key', 'cell')} AND c0.tenant_id = $1 AND ${liveRow('c0')} OFFSET 0) c
    CROSS JOIN LATERAL (
      SELECT f.key AS from_key, ${cellKey('n')} AS to_key, r.relation_type AS type, ${cellKey('n')} AS other, n.tenant_id AS other_tenant, n.project AS other_project
        FROM cell_relations r JOIN cells n ON n.node_id = r.to_node_id AND ${liveRow('n')} WHERE r.from_node_id = c.node_id AND ${held}
      UNION ALL
      SELECT ${cellKey('n')}, f.key, r.relation_type, ${cellKey('n')}, n.tenant_id, n.project
        FROM cell_relations r JOIN cells n ON n.node_id = r.from_node_id AND ${liveRow('n')} WHERE r.to_node_id = c.node_id AND ${held}
      UNION ALL
      SELECT f.key, ${cellKey('n')}, 'supersedes', ${cellKey('n')}, n.tenant_id, n.project FROM cells n WHERE ${liveRow('n')} AND n.node_id = c.supersedes
      UNION ALL
      SELECT ${cellKey('n')}, f.key, 'supersedes', ${cellKey('n')}, n.tenant_id, n.project FROM cells n WHERE ${liveRow('n')} AND n.node_id = c.superseded_by
      UNION ALL
      SELECT f.key, ${cellKey('n')}, 'promoted_from', ${cellKey('n')}, n.tenant_id, n.project FROM cells n WHERE ${liveRow('n')} AND n.node_id = c.origin_node_id
      UNION ALL
      SELECT ${cellKey('n')}, f.key, 'promoted_from', ${cellKey('n')}, n.tenant_id, n.project FROM cells n WHERE ${liveRow('n')} AND n.node_id = c.promoted_node_id
      UNION ALL
      SELECT f.key, 'scene:' || s.scene_id, 'in_scene', 'scene:' || s.scene_id, s.tenant_id, s.project
        FROM scenes s WHERE s.tenant_id = c.tenant_id AND s.scene_id = c.scene_id
      UNION ALL
      SELECT f.key, 'session:' || s.session_id, 'in_session', 'session:' || s.session_id, s.tenant_id, s.project
        FROM sessions s WHERE s.tenant_id = c.tenant_id AND s.session_id = c.session_id
      UNION ALL
      SELECT f.key, 'corroboration:' || k.corroboration_id, 'corroborated_by', 'corroboration:' || k.corroboration_id, k.tenant_id, c.project
        FROM corroborations k WHERE k.tenant_id = c.tenant_id AND k.node_id = c.node_id
      UNION ALL
      SELECT f.key, 'source:' || s.project || ':' || s.source_id, 'chunk_of', 'source:' || s.project || ':' || s.source_id, s.tenant_id, s.project
        FROM sources s WHERE ${liveRow('s')} AND s.tenant_id = c.tenant_id AND s.project = c.project AND s.source_id = c.source_id
      UNION ALL
      SELECT f.key, ${cellKey('n')}, 'next_chunk', ${cellKey('n')}, n.tenant_id, n.project FROM cells n
        WHERE ${liveRow('n')} AND n.tenant_id = c.tenant_id AND n.project = c.project AND n.source_id = c.source_id AND n.chunk_index = c.chunk_index + 1
      UNION ALL
      SELECT ${cellKey('n')}, f.key, 'next_chunk', ${cellKey('n')}, n.tenant_id, n.project FROM cells n
        WHERE ${liveRow('n')} AND n.tenant_id = c.tenant_id AND n.project = c.project AND n.source_id = c.source_id AND n.chunk_index = c.chunk_index - 1
      UNION ALL
      -- A conversation is a thread: each later turn links to its first one.
      SELECT f.key, ${cellKey('n')}, 'same_thread', ${cellKey('n')}, n.tenant_id, n.project FROM cells n
        JOIN sources s ON s.tenant_id = n.tenant_id AND s.project = n.project AND s.source_id = n.source_id AND s.format = 'conversation'
        WHERE ${liveRow('n')} AND c.chunk_index > 0 AND n.tenant_id = c.tenant_id AND n.project = c.project AND n.source_id = c.source_id AND n.chunk_index = 0
      UNION ALL
      SELECT ${cellKey('n')}, f.key, 'same_thread', ${cellKey('n')}, n.tenant_id, n.project FROM cells n
        JOIN sources s ON s.tenant_id = n.tenant_id AND s.project = n.project AND s.source_id = n.source_id AND s.format = 'conversation'
        WHERE ${liveRow('n')} AND c.chunk_index = 0 AND n.tenant_id = c.tenant_id AND n.project = c.project AND n.source_id = c.source_id AND n.chunk_index > 0
    ) e
    UNION ALL
    SELECT f.pos, f.key, ${cellKey('n')}, f.key, 'in_scene', ${cellKey('n')}, n.tenant_id, n.project
      FROM ${frontier} CROSS JOIN LATERAL (SELECT * FROM cells n0 WHERE n0.tenant_id = $1 AND ${liveRow('n0')} AND n0.scene_id = ${uuidOf('f.key', 'scene')} OFFSET 0) n
    UNION ALL
    SELECT f.pos, f.key, ${cellKey('n')}, f.key, 'in_session', ${cellKey('n')}, n.tenant_id, n.project
      FROM ${frontier} CROSS JOIN LATERAL (SELECT * FROM cells n0 WHERE n0.tenant_id = $1 AND ${liveRow('n0')} AND n0.session_id = ${uuidOf('f.key', 'session')} OFFSET 0) n
    UNION ALL
    SELECT f.pos, f.key, ${cellKey('n')}, f.key, 'chunk_of', ${cellKey('n')}, n.tenant_id, n.project
      FROM ${frontier} CROSS JOIN LATERAL (
        SELECT * FROM cells n0 WHERE n0.tenant_id = $1 AND ${liveRow('n0')} AND n0.project = ${sourceProject('f.key')} AND n0.source_id = ${sourceId('f.key')} OFFSET 0) n
    UNION ALL
    SELECT f.pos, f.key, ${cellKey('n')}, f.key, 'corroborated_by', ${cellKey('n')}, n.tenant_id, n.project
      FROM ${frontier} CROSS JOIN LATERAL (
        SELECT n0.* FROM corroborations k JOIN cells n0 ON n0.node_id = k.node_id AND ${liveRow('n0')}
        WHERE k.tenant_id = $1 AND k.corroboration_id = ${uuidOf('f.key', 'corroboration')} OFFSET 0) n`;
}

/**
 * The subgraph, or null when the start cell is not one the caller may read. The statement is a
 * prepared statement with a generic plan (plan_cache_mode for this transaction only), so each
 * connection plans it once: its every step is an index probe whatever the values, and planning it
 * anew cost a third of the walk.
 */
export async function subgraphOf(db: Db, request: SubgraphRequest): Promise<SubgraphRows | null> {
  const result = await db.transaction(async (tx) => {
    await tx.query("SELECT set_config('plan_cache_mode', $1, true)", ['force_generic_plan']);
    return tx.query<SubgraphRows & { levels: number | string }>(SUBGRAPH_SQL, [
      request.tenantId,
      request.projects,
      request.startNodeId,
      request.depth,
      request.maxMembers,
      request.relationTypes,
      request.previewChars,
      request.at.toISOString(),
    ]);
  }, { preparedStatements: true });
  const row = result.rows[0];
  if (row === undefined || Number(row.levels) === 0) return null;
  return { members: row.members, relations: row.relations, truncated: row.truncated };
}

/**
 * Each cell's one-hop edges (explicit and implicit) to what the caller may read, at most
 * `perCell` a cell (by type, then the other end's id): recall's graph context.
 */
export async function oneHopRelations(
  q: Queryable,
  request: { readonly tenantId: string; readonly projects: readonly string[] | null; readonly nodeIds: readonly string[]; readonly perCell: number; readonly at: Date },
): Promise<Map<string, { from: string; to: string; type: string }[]>> {
  const out = new Map<string, { from: string; to: string; type: string }[]>();
  if (request.nodeIds.length === 0) return out;
  const result = await q.query<{ node_id: string; relations: { from: string; to: string; type: string }[] }>(
    `SELECT substr(x.via, 6) AS node_id,
       jsonb_agg(jsonb_build_object('from', ${idOf('x.from_key')}, 'to', ${idOf('x.to_key')}, 'type', x.type) ORDER BY x.rank) AS relations
     FROM (
       SELECT d.*, row_number() OVER (PARTITION BY d.via ORDER BY d.type, d.other, d.from_key) AS rank
       FROM (SELECT DISTINCT e.via, e.from_key, e.to_key, e.type, e.other
             FROM (${edgesOf('unnest($3::text[]) WITH ORDINALITY AS f(key, pos)', '$5::timestamptz')}) e
             WHERE ${visible('e.other_tenant', 'e.other_project')}) d
     ) x
     WHERE x.rank <= $4
     GROUP BY x.via`,
    [request.tenantId, request.projects, request.nodeIds.map((id) => `cell:${id}`), request.perCell, request.at.toISOString()],
  );
  for (const row of result.rows) out.set(row.node_id, row.relations);
  return out;
}
