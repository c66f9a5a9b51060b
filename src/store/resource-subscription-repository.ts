/** SQL for MCP resource subscriptions; every statement is scoped by tenant and agent. */
import type { Queryable } from './db.js';

/** Subscriptions not renewed for this long are dropped when the agent subscribes again (sessions end without telling). */
const STALE_AFTER = "interval '30 days'";

export async function upsertSubscription(q: Queryable, tenantId: string, agent: string, session: string, resource: string): Promise<void> {
  await q.query(
    `INSERT INTO resource_subscriptions (tenant_id, agent, session, resource) VALUES ($1, $2, $3, $4)
     ON CONFLICT (tenant_id, agent, session, resource) DO UPDATE SET updated_at = now()`,
    [tenantId, agent, session, resource],
  );
  await q.query(`DELETE FROM resource_subscriptions WHERE tenant_id = $1 AND agent = $2 AND updated_at < now() - ${STALE_AFTER}`, [tenantId, agent]);
}

export async function deleteSubscription(q: Queryable, tenantId: string, agent: string, session: string, resource: string): Promise<void> {
  await q.query(`DELETE FROM resource_subscriptions WHERE tenant_id = $1 AND agent = $2 AND session = $3 AND resource = $4`, [
    tenantId,
    agent,
    session,
    resource,
  ]);
}

export async function sessionSubscriptions(q: Queryable, tenantId: string, agent: string, session: string): Promise<string[]> {
  const result = await q.query<{ resource: string }>(
    `SELECT resource FROM resource_subscriptions WHERE tenant_id = $1 AND agent = $2 AND session = $3 ORDER BY resource`,
    [tenantId, agent, session],
  );
  return result.rows.map((row) => row.resource);
}
