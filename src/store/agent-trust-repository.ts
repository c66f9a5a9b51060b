/** SQL for the trust an agent holds in its tenant, read when its memories are pushed to others. */
import type { Queryable } from './db.js';

/** An agent's trust: the highest of its unrevoked keys; undefined when it has none. */
export async function agentTrust(q: Queryable, tenantId: string, agent: string): Promise<number | undefined> {
  const result = await q.query<{ trust: number | null }>(
    `SELECT max(trust)::float8 AS trust FROM api_keys WHERE tenant_id = $1 AND agent = $2 AND revoked_at IS NULL`,
    [tenantId, agent],
  );
  const trust = result.rows[0]?.trust;
  return trust === null || trust === undefined ? undefined : Number(trust);
}
