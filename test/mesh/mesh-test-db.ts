/**
 * A real PGlite database with the product's migrations, behind the store's Db interface, for the
 * mesh tests that need only the diffs/beacons tables (the storage layer's driver may replace it).
 */
import { readFile } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import type { Transaction } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import type { Db, PoolStats, QueryResult, Queryable } from '../../src/store/db.js';

export const TEST_DIMENSION = 8;

function queryableOf(target: PGlite | Transaction): Queryable {
  return {
    async query<Row>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<Row>> {
      const result = await target.query<Row>(sql, [...params]);
      return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
    },
  };
}

export async function createMeshTestDb(dimension = TEST_DIMENSION): Promise<Db & { readonly pglite: PGlite }> {
  const pglite = await PGlite.create({ extensions: { vector } });
  for (const file of ['0001_core.sql', '0002_mesh.sql']) {
    const sql = await readFile(new URL(`../../src/store/migrations/${file}`, import.meta.url), 'utf8');
    await pglite.exec(sql.replaceAll('{{EMBEDDING_DIMENSION}}', String(dimension)));
  }
  const direct = queryableOf(pglite);
  return {
    driver: 'pglite',
    pglite,
    query: direct.query,
    transaction: <T>(fn: (tx: Queryable) => Promise<T>): Promise<T> => pglite.transaction((tx) => fn(queryableOf(tx))),
    poolStats: (): PoolStats => ({ total: 1, idle: 1, waiting: 0 }),
    close: (): Promise<void> => pglite.close(),
  };
}

/** Places a beacon row for `agent` (matching is the facade's job; these tests need only the row). */
export async function insertBeacon(db: Queryable, tenantId: string, agent: string, beaconId: string): Promise<void> {
  await db.query(
    `INSERT INTO beacons (beacon_id, tenant_id, owner_agent, owner_projects, text, embedding, threshold)
     VALUES ($1, $2, $3, ARRAY['p'], 'interest', $4, 0.5)`,
    [beaconId, tenantId, agent, `[${Array.from({ length: TEST_DIMENSION }, () => 0.1).join(',')}]`],
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
