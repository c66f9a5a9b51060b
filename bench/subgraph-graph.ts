/**
 * The graph the relations bench walks, laid over bulk-loaded cells by SQL: every cell in a session
 * of SESSION_CELLS, every SESSIONS_PER_SCENE sessions in a scene, one cell in SUPERSEDED_EVERY the
 * replaced version of the next, and RELATIONS_PER_CELL declared relations from each cell to cells
 * spread over the table — the edges a subgraph walks (docs/relations.md), at the shape a busy
 * tenant has.
 */
import type { Queryable } from '../src/store/db.js';

export const SESSION_CELLS = 20;
export const SESSIONS_PER_SCENE = 5;
export const SUPERSEDED_EVERY = 20;
export const RELATIONS_PER_CELL = 3;
const RELATION_TYPES = ['answers', 'depends_on', 'relates_to'] as const;

/**
 * Lays the graph over the tenant's cells (numbered by node_id). Run it between the bulk load and
 * the HNSW build (bulkLoad's beforeIndex), with no statement timeout: the cells are rewritten
 * once, in one UPDATE, while no vector index has to take them again.
 */
export async function layGraph(db: Queryable, tenant: string, project: string): Promise<void> {
  await db.query(
    `CREATE TEMP TABLE graph_cells AS
     SELECT node_id, (row_number() OVER (ORDER BY node_id) - 1)::int AS i FROM cells WHERE tenant_id = $1`,
    [tenant],
  );
  await db.query('CREATE UNIQUE INDEX ON graph_cells (i)');
  await db.query('ANALYZE graph_cells');
  const sessionOf = `md5('session:' || (g.i / ${SESSION_CELLS}))::uuid`;
  const sceneOf = `md5('scene:' || (g.i / ${SESSION_CELLS * SESSIONS_PER_SCENE}))::uuid`;
  await db.query(
    `INSERT INTO scenes (tenant_id, scene_id, project, title, created_by)
     SELECT DISTINCT $1, ${sceneOf}, $2, 'scene ' || (g.i / ${SESSION_CELLS * SESSIONS_PER_SCENE}), 'loader' FROM graph_cells g`,
    [tenant, project],
  );
  await db.query(
    `INSERT INTO sessions (tenant_id, session_id, agent, project, scene_id)
     SELECT DISTINCT $1, ${sessionOf}, 'loader', $2, ${sceneOf} FROM graph_cells g`,
    [tenant, project],
  );
  // Cell i (i mod SUPERSEDED_EVERY = 1) replaced cell i - 1; every cell joins its session and scene.
  await db.query(
    `UPDATE cells c SET session_id = ${sessionOf}, scene_id = ${sceneOf},
       supersedes = CASE WHEN g.i % ${SUPERSEDED_EVERY} = 1 THEN p.node_id END,
       superseded_by = CASE WHEN g.i % ${SUPERSEDED_EVERY} = 0 THEN n.node_id END,
       valid_until = CASE WHEN g.i % ${SUPERSEDED_EVERY} = 0 AND n.node_id IS NOT NULL THEN now() END
     FROM graph_cells g LEFT JOIN graph_cells p ON p.i = g.i - 1 LEFT JOIN graph_cells n ON n.i = g.i + 1
     WHERE c.node_id = g.node_id`,
  );
  const count = `(SELECT count(*) FROM graph_cells)`;
  await db.query(
    `INSERT INTO cell_relations (tenant_id, from_node_id, to_node_id, relation_type, created_by, created_at)
     SELECT $1, g.node_id, t.node_id, ($2::text[])[k], 'loader', now()
     FROM graph_cells g CROSS JOIN generate_series(1, ${RELATIONS_PER_CELL}) AS k
     JOIN graph_cells t ON t.i = ((g.i::bigint * 7919 + k * 104729) % ${count})::int
     WHERE t.node_id <> g.node_id
     ON CONFLICT DO NOTHING`,
    [tenant, RELATION_TYPES],
  );
  await db.query('DROP TABLE graph_cells');
}

/** `n` of the tenant's cells spread over the table, to start walks from and relate to. */
export async function spreadCells(db: Queryable, tenant: string, n: number): Promise<string[]> {
  const { rows } = await db.query<{ node_id: string }>(
    `SELECT node_id::text AS node_id FROM cells WHERE tenant_id = $1 AND valid_until IS NULL ORDER BY md5(node_id::text) LIMIT $2`,
    [tenant, n],
  );
  return rows.map((r) => r.node_id);
}
