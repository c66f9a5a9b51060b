/** SQL for scenes. Every statement is scoped by tenant_id. */
import type { Scene } from '../core/entities.js';
import { liveRow } from './cell-conditions.js';
import type { Queryable } from './db.js';
import { SqlConditions } from './sql/conditions.js';
import { keysetPage, type KeysetPosition } from './sql/keyset-page.js';
import { isoText } from './sql-time.js';

/** A scene as stored: its wire shape with the consolidation it says `consolidated` of. */
export type SceneRow = Omit<Scene, 'consolidated'> & {
  readonly consolidated_at: string | null;
  readonly consolidated_node_id: string | null;
};

const SCENE_COLUMNS = `s.scene_id::text AS scene_id, s.project, s.title, s.created_by, ${isoText('s.created_at')} AS created_at,
  (SELECT count(*) FROM cells c WHERE c.tenant_id = s.tenant_id AND c.scene_id = s.scene_id AND ${liveRow('c')})::int AS cell_count,
  CASE WHEN s.consolidated_at IS NULL THEN NULL ELSE ${isoText('s.consolidated_at')} END AS consolidated_at,
  s.consolidated_node_id::text AS consolidated_node_id`;

export interface NewScene {
  readonly tenantId: string;
  readonly sceneId: string;
  readonly project: string;
  readonly title: string | null;
  readonly createdBy: string;
}

export async function insertScene(q: Queryable, scene: NewScene): Promise<void> {
  await q.query(`INSERT INTO scenes (tenant_id, scene_id, project, title, created_by, created_at) VALUES ($1, $2, $3, $4, $5, clock_timestamp())`, [
    scene.tenantId,
    scene.sceneId,
    scene.project,
    scene.title,
    scene.createdBy,
  ]);
}

export async function findScene(q: Queryable, tenantId: string, sceneId: string): Promise<SceneRow | null> {
  const result = await q.query<SceneRow>(`SELECT ${SCENE_COLUMNS} FROM scenes s WHERE s.tenant_id = $1 AND s.scene_id = $2`, [tenantId, sceneId]);
  return result.rows[0] ?? null;
}

/** Locks the scene row for the rest of the transaction (consolidation). */
export async function lockScene(q: Queryable, tenantId: string, sceneId: string): Promise<SceneRow | null> {
  await q.query(`SELECT 1 FROM scenes WHERE tenant_id = $1 AND scene_id = $2 FOR UPDATE`, [tenantId, sceneId]);
  return findScene(q, tenantId, sceneId);
}

/** Newest first on (created_at, scene_id); projects null = every project of the tenant. Up to limit + 1 rows. */
export async function listScenes(
  q: Queryable,
  tenantId: string,
  projects: readonly string[] | null,
  project: string | undefined,
  after: KeysetPosition | null,
  limit: number,
): Promise<SceneRow[]> {
  const where = new SqlConditions([tenantId], ['s.tenant_id = $1'])
    .add((n) => `s.project = ANY($${n}::text[])`, projects ?? undefined)
    .add((n) => `s.project = $${n}`, project);
  const page = keysetPage(where, { createdAt: 's.created_at', id: 's.scene_id', direction: 'newest-first' }, after, limit);
  const result = await q.query<SceneRow>(`SELECT ${SCENE_COLUMNS} FROM scenes s WHERE ${where.sql} ${page}`, where.params);
  return result.rows;
}

export async function markSceneConsolidated(q: Queryable, tenantId: string, sceneId: string, nodeId: string, now: Date): Promise<void> {
  await q.query(`UPDATE scenes SET consolidated_at = $4, consolidated_node_id = $3 WHERE tenant_id = $1 AND scene_id = $2`, [
    tenantId,
    sceneId,
    nodeId,
    now.toISOString(),
  ]);
}

/** A deleted consolidation no longer counts: the scene reads as not consolidated again. */
export async function clearSceneConsolidation(q: Queryable, tenantId: string, nodeId: string): Promise<void> {
  await q.query(`UPDATE scenes SET consolidated_at = NULL, consolidated_node_id = NULL WHERE tenant_id = $1 AND consolidated_node_id = $2`, [
    tenantId,
    nodeId,
  ]);
}
