/**
 * SQL behind the tenant-wide views people's tools read (the web console): who received what, the
 * agents and their beacons, what each agent holds against its quotas. Every statement is scoped by
 * tenant_id; the facade narrows the rows to what the reading key may see.
 */
import { BEACON_COLUMNS, type BeaconRow } from './beacon-repository.js';
import type { Queryable } from './db.js';
import { DELIVERY_COLUMNS, type DeliveryRow } from './diff-repository.js';

/** The tenant's newest diffs (one agent's when `recipient` is set), newest first. */
export async function recentDeliveries(q: Queryable, tenantId: string, recipient: string | null, limit: number): Promise<DeliveryRow[]> {
  const result = await q.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM diffs
     WHERE tenant_id = $1 AND ($2::text IS NULL OR recipient_agent = $2)
     ORDER BY created_at DESC, seq DESC LIMIT $3`,
    [tenantId, recipient, limit],
  );
  return result.rows;
}

/** The tenant's unexpired beacons, by owner then age; at most `limit`. */
export async function tenantLiveBeacons(q: Queryable, tenantId: string, now: Date, limit: number): Promise<BeaconRow[]> {
  const result = await q.query<BeaconRow>(
    `SELECT ${BEACON_COLUMNS} FROM beacons WHERE tenant_id = $1 AND (expires_at IS NULL OR expires_at > $2)
     ORDER BY owner_agent, created_at, beacon_id LIMIT $3`,
    [tenantId, now.toISOString(), limit],
  );
  return result.rows;
}

/** The agents that hold an unrevoked key of the tenant, by name. */
export async function agentsWithActiveKeys(q: Queryable, tenantId: string): Promise<string[]> {
  const result = await q.query<{ agent: string }>(`SELECT DISTINCT agent FROM api_keys WHERE tenant_id = $1 AND revoked_at IS NULL ORDER BY agent`, [tenantId]);
  return result.rows.map((row) => row.agent);
}

export interface AgentCount {
  readonly agent: string;
  readonly count: number;
}

/** Unexpired beacons per owner, for the agents that hold any. */
export async function liveBeaconsPerAgent(q: Queryable, tenantId: string, now: Date): Promise<AgentCount[]> {
  const result = await q.query<AgentCount>(
    `SELECT owner_agent AS agent, count(*)::int AS count FROM beacons
     WHERE tenant_id = $1 AND (expires_at IS NULL OR expires_at > $2) GROUP BY owner_agent ORDER BY owner_agent`,
    [tenantId, now.toISOString()],
  );
  return result.rows;
}

/** Open sessions per agent, for the agents that hold any. */
export async function openSessionsPerAgent(q: Queryable, tenantId: string): Promise<AgentCount[]> {
  const result = await q.query<AgentCount>(
    `SELECT agent, count(*)::int AS count FROM sessions WHERE tenant_id = $1 AND closed_at IS NULL GROUP BY agent ORDER BY agent`,
    [tenantId],
  );
  return result.rows;
}
