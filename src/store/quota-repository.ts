/** SQL behind the tenant quotas (src/service/facade/tenant-quotas.ts): capped counts and the locks that serialize them. */
import type { Queryable } from './db.js';

/** Serializes the exact cell counts of one tenant until the transaction ends. */
export async function lockTenantCells(tx: Queryable, tenantId: string): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('hyphae.cells:' || $1, 0))`, [tenantId]);
}

/** The tenant's cells, counted up to `cap` at most (the count stops there: its cost is bounded by the quota). */
export async function countTenantCells(q: Queryable, tenantId: string, cap: number): Promise<number> {
  const result = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM (SELECT 1 FROM cells WHERE tenant_id = $1 LIMIT $2) AS capped`, [
    tenantId,
    cap,
  ]);
  return result.rows[0]?.n ?? 0;
}

/** Serializes session openings of one agent until the transaction ends. */
export async function lockAgentSessions(tx: Queryable, tenantId: string, agent: string): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('hyphae.sessions:' || $1 || ':' || $2, 0))`, [tenantId, agent]);
}

/** The agent's open sessions, counted up to `cap` at most. */
export async function countOpenSessions(q: Queryable, tenantId: string, agent: string, cap: number): Promise<number> {
  const result = await q.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (SELECT 1 FROM sessions WHERE tenant_id = $1 AND agent = $2 AND closed_at IS NULL LIMIT $3) AS capped`,
    [tenantId, agent, cap],
  );
  return result.rows[0]?.n ?? 0;
}
