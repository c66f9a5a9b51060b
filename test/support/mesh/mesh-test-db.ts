/** Mesh test databases: template-cloned, migrated PGlite (test/support), and rows the facade would write. */
import type { Db, Queryable } from '../../../src/store/db.js';
import { createTestDb } from '../test-db.js';

export const TEST_DIMENSION = 8;

export async function createMeshTestDb(dimension = TEST_DIMENSION): Promise<Db> {
  return createTestDb({ dimension });
}

/** Places a beacon row for `agent` (matching is the facade's job; these tests need only the row). */
export async function insertBeacon(db: Queryable, tenantId: string, agent: string, beaconId: string, dimension = TEST_DIMENSION): Promise<void> {
  await db.query(
    `INSERT INTO beacons (beacon_id, tenant_id, owner_agent, owner_projects, text, embedding, threshold)
     VALUES ($1, $2, $3, ARRAY['p'], 'interest', $4, 0.5)`,
    [beaconId, tenantId, agent, `[${Array.from({ length: dimension }, () => 0.1).join(',')}]`],
  );
}

/** Writes one diff into the agent's inbox the way the diff writer does: seq allocated under the inbox row lock. */
export async function insertDiff(db: Db, tenantId: string, agent: string, beaconId: string, preview = 'p'): Promise<number> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ last_seq: number }>(
      `INSERT INTO inboxes (tenant_id, agent, last_seq) VALUES ($1, $2, 1)
       ON CONFLICT (tenant_id, agent) DO UPDATE SET last_seq = inboxes.last_seq + 1 RETURNING last_seq::float8 AS last_seq`,
      [tenantId, agent],
    );
    const seq = Number(rows[0]?.last_seq);
    await tx.query(
      `INSERT INTO diffs (diff_id, tenant_id, recipient_agent, seq, op, node_id, beacon_id, similarity, cell_type, salience,
         source_agent, project, scene_id, preview)
       VALUES (gen_random_uuid(), $1, $2, $3, 'created', gen_random_uuid(), $4, 0.9, 'Fact', 0.5, 'writer', 'p', NULL, $5)`,
      [tenantId, agent, seq, beaconId, preview],
    );
    return seq;
  });
}
