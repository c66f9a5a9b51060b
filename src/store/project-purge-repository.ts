/** SQL of the admin purge of one project of a tenant (docs/memory-model.md, "Forgetting"). */
import type { PurgedProject } from '../core/entities.js';
import type { Queryable } from './db.js';

/**
 * Deletes everything one project of a tenant holds: its cells (every layer and version; their
 * reinforcement keys and cell resource subscriptions go with them), scenes, sessions, the beacons
 * that watch only it, the diffs about it still in inboxes (their previews quote the cells), and its
 * sources (their chunks are among its cells) with any ingestion of them pending.
 * Tenant-wide beacons stay. Counts what went.
 */
export async function purgeProject(q: Queryable, tenantId: string, project: string): Promise<Omit<PurgedProject, 'project'>> {
  const count = async (sql: string): Promise<number> => (await q.query(sql, [tenantId, project])).rowCount;
  const diffs = await count(`DELETE FROM diffs WHERE tenant_id = $1 AND project = $2`);
  const cells = await q.query<{ n: number }>(
    `WITH gone AS (DELETE FROM cells WHERE tenant_id = $1 AND project = $2 RETURNING node_id),
       unsubscribed AS (DELETE FROM resource_subscriptions WHERE tenant_id = $1 AND resource IN (SELECT 'cell:' || node_id::text FROM gone))
     SELECT count(*)::int AS n FROM gone`,
    [tenantId, project],
  );
  const sessions = await count(`DELETE FROM sessions WHERE tenant_id = $1 AND project = $2`);
  const scenes = await count(`DELETE FROM scenes WHERE tenant_id = $1 AND project = $2`);
  const beacons = await count(`DELETE FROM beacons WHERE tenant_id = $1 AND project = $2`);
  // Its sources go with their chunks (docs/sources.md); a pending ingestion takes its drafts with it.
  await count(`DELETE FROM sources WHERE tenant_id = $1 AND project = $2`);
  await count(`DELETE FROM source_ingestions WHERE tenant_id = $1 AND project = $2`);
  return { cells: cells.rows[0]?.n ?? 0, scenes, sessions, beacons, diffs };
}
