import { afterEach, beforeEach, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { Db } from '../../src/store/db.js';
import { parseVectorText, toVectorText } from '../../src/store/vector-text.js';
import { describeEachDriver } from '../support/each-driver.js';

const DIMENSION = 512;

function unitVector(hot: number, spill = 0): Float32Array {
  const v = new Float32Array(DIMENSION);
  v[hot] = 1;
  if (spill > 0) v[(hot + 1) % DIMENSION] = spill;
  return v;
}

async function insertCell(db: Db, embedding: Float32Array, content = 'c', tenant = 't1'): Promise<string> {
  const nodeId = randomUUID();
  await db.query(
    `INSERT INTO cells (node_id, tenant_id, project, content, cell_type, salience, source_agent, embedding)
     VALUES ($1, $2, 'p', $3, 'Fact', 0.5, 'agent', $4::vector)`,
    [nodeId, tenant, content, toVectorText(embedding)],
  );
  return nodeId;
}

describeEachDriver('Db driver', ({ driver, createDb }) => {
  let db: Db;
  beforeEach(async () => {
    db = await createDb();
  });
  afterEach(async () => {
    await db.close();
  });

  it('reports its driver name', () => {
    expect(db.driver).toBe(driver);
  });

  it('stores a vector and reads it back as text', async () => {
    const embedding = unitVector(3, 0.25);
    const nodeId = await insertCell(db, embedding);
    const { rows, rowCount } = await db.query<{ embedding: string }>(
      'SELECT embedding::text AS embedding FROM cells WHERE tenant_id = $1 AND node_id = $2',
      ['t1', nodeId],
    );
    expect(rowCount).toBe(1);
    expect(Array.from(parseVectorText(rows[0]?.embedding ?? ''))).toEqual(Array.from(embedding));
  });

  it('finds the cosine nearest neighbours through the HNSW index', async () => {
    const ids = [];
    for (let i = 0; i < 20; i++) ids.push(await insertCell(db, unitVector(i, 0.1), `cell ${i}`));
    await db.query('SET enable_seqscan = off');
    const query = toVectorText(unitVector(7, 0.1));
    const plan = await db.query<{ 'QUERY PLAN': string }>(
      'EXPLAIN SELECT node_id FROM cells ORDER BY embedding <=> $1::vector LIMIT 3',
      [query],
    );
    expect(plan.rows.map((row) => row['QUERY PLAN']).join('\n')).toContain('cells_embedding');
    const { rows } = await db.query<{ node_id: string; distance: number }>(
      'SELECT node_id, embedding <=> $1::vector AS distance FROM cells WHERE tenant_id = $2 ORDER BY embedding <=> $1::vector LIMIT 3',
      [query, 't1'],
    );
    expect(rows[0]?.node_id).toBe(ids[7]);
    expect(rows[0]?.distance).toBeCloseTo(0, 5);
    expect(rows).toHaveLength(3);
  });

  it('commits a transaction when its function resolves', async () => {
    const result = await db.transaction(async (tx) => {
      await tx.query("INSERT INTO tenants (tenant_id) VALUES ('committed')");
      return 'done';
    });
    expect(result).toBe('done');
    const { rows } = await db.query<{ n: number }>("SELECT count(*) AS n FROM tenants WHERE tenant_id = 'committed'");
    expect(rows[0]?.n).toBe(1);
  });

  it('rolls a transaction back when its function throws', async () => {
    const failure = new Error('abort');
    await expect(
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO tenants (tenant_id) VALUES ('rolled-back')");
        throw failure;
      }),
    ).rejects.toBe(failure);
    const { rows } = await db.query<{ n: number }>("SELECT count(*) AS n FROM tenants WHERE tenant_id = 'rolled-back'");
    expect(rows[0]?.n).toBe(0);
  });

  it('returns the same JS types on both drivers', async () => {
    const { rows } = await db.query<Record<string, unknown>>(
      `SELECT 42::int8 AS big, 0.5::real AS fraction, '{"a":1}'::jsonb AS doc, ARRAY['x','y']::text[] AS list,
              now() AS at, NULL::text AS missing, true AS flag, $1::uuid AS id`,
      ['6f1c7b0e-5b0a-4f57-9a36-1d7f3f1f2d10'],
    );
    expect(rows[0]).toEqual({
      big: 42,
      fraction: 0.5,
      doc: { a: 1 },
      list: ['x', 'y'],
      at: expect.any(Date),
      missing: null,
      flag: true,
      id: '6f1c7b0e-5b0a-4f57-9a36-1d7f3f1f2d10',
    });
  });

  it('counts affected rows of DML and runs multi-statement text without parameters', async () => {
    const result = await db.query("INSERT INTO tenants (tenant_id) VALUES ('a'); INSERT INTO tenants (tenant_id) VALUES ('b'), ('c')");
    expect(result.rowCount).toBe(2);
    const updated = await db.query("UPDATE tenants SET created_at = now() WHERE tenant_id IN ('a', 'b', 'c')");
    expect(updated.rowCount).toBe(3);
  });

  it('keeps plain queries and transactions consistent when they interleave', async () => {
    const work = [];
    for (let i = 0; i < 10; i++) {
      work.push(
        db.transaction(async (tx) => {
          await tx.query('INSERT INTO tenants (tenant_id) VALUES ($1)', [`tx-${i}`]);
          const { rows } = await tx.query<{ n: number }>("SELECT count(*) AS n FROM tenants WHERE tenant_id = $1", [`tx-${i}`]);
          if (i % 2 === 1) throw new Error(`rollback ${i}`);
          return rows[0]?.n;
        }),
      );
      work.push(db.query('INSERT INTO tenants (tenant_id) VALUES ($1)', [`plain-${i}`]));
    }
    const outcomes = await Promise.allSettled(work);
    expect(outcomes.filter((o) => o.status === 'rejected')).toHaveLength(5);
    const { rows } = await db.query<{ tenant_id: string }>("SELECT tenant_id FROM tenants WHERE tenant_id LIKE 'tx-%' OR tenant_id LIKE 'plain-%' ORDER BY tenant_id");
    const expected = [...[0, 2, 4, 6, 8].map((i) => `tx-${i}`), ...Array.from({ length: 10 }, (_, i) => `plain-${i}`)].sort();
    expect(rows.map((row) => row.tenant_id).sort()).toEqual(expected);
  });

  it('exposes the SQLSTATE of a failed statement', async () => {
    await db.query("INSERT INTO tenants (tenant_id) VALUES ('dup')");
    await expect(db.query("INSERT INTO tenants (tenant_id) VALUES ('dup')")).rejects.toMatchObject({ code: '23505' });
  });
});
