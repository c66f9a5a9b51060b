/** SQL for the agents of a tenant: whether a name is one, and the trust it holds (read when its memories are pushed to others). */
import type { Queryable } from './db.js';

/** An agent's trust: the highest of its unrevoked keys; undefined when it has none. */
export async function agentTrust(q: Queryable, tenantId: string, agent: string): Promise<number | undefined> {
  const result = await q.query<{ trust: number | null }>(
    // real, as a key's own trust is read: a float8 cast would widen 0.8 to 0.800000011920929.
    `SELECT max(trust) AS trust FROM api_keys WHERE tenant_id = $1 AND agent = $2 AND revoked_at IS NULL`,
    [tenantId, agent],
  );
  const trust = result.rows[0]?.trust;
  return trust === null || trust === undefined ? undefined : Number(trust);
}

/** Which of these names are agents of the tenant: they hold a key (revoked or not) or an inbox there. */
export async function tenantAgents(q: Queryable, tenantId: string, names: readonly string[]): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const result = await q.query<{ agent: string }>(
    `SELECT agent FROM api_keys WHERE tenant_id = $1 AND agent = ANY($2::text[])
     UNION SELECT agent FROM inboxes WHERE tenant_id = $1 AND agent = ANY($2::text[])`,
    [tenantId, names],
  );
  return new Set(result.rows.map((row) => row.agent));
}
