import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDb } from '../../test/support/test-db.js';
import type { Db } from './db.js';
import { analyzeMemoryTables, analyzeTables, grownMemoryTables, tablesWithDeadRows, vacuumTables } from './statistics-repository.js';

async function addSessions(db: Db, count: number): Promise<void> {
  await db.query(
    `INSERT INTO sessions (session_id, tenant_id, agent, project, scene_id, opened_at)
     SELECT gen_random_uuid(), 'stats', 'agent-' || i, 'project-' || i, gen_random_uuid(), now() FROM generate_series(1, $1::int) AS i`,
    [count],
  );
}

// A fresh migrated database per test, for both suites below.
let db: Db;
beforeEach(async () => {
  db = await createTestDb();
});
afterEach(async () => {
  await db.close();
});

describe('grownMemoryTables (the embedded analyzer check)', () => {
  it('names exactly the memory tables whose heap outgrew their statistics, and none once analyzed', async () => {
    await analyzeMemoryTables(db);
    expect(await grownMemoryTables(db)).toEqual([]);

    await addSessions(db, 2_000);
    expect(await grownMemoryTables(db)).toEqual(['sessions']);

    await analyzeTables(db, await grownMemoryTables(db));
    expect(await grownMemoryTables(db)).toEqual([]);
  });

  it('takes statistics of the relations and the learnt evidence, which subgraph walks and learning recalls probe', async () => {
    await analyzeMemoryTables(db);
    const { rows } = await db.query<{ relname: string }>(
      `SELECT relname::text AS relname FROM pg_class WHERE relname IN ('cell_relations', 'cell_evidence') AND reltuples < 0`,
    );
    expect(rows).toEqual([]);
  });

  it('does not count growth within a tenth of the analyzed size', async () => {
    await addSessions(db, 4_000);
    await analyzeMemoryTables(db);
    await addSessions(db, 100);
    expect(await grownMemoryTables(db)).toEqual([]);
  });
});

describe('tablesWithDeadRows and vacuumTables (the embedded vacuum)', () => {
  it('names a memory table once its dead rows pass 50 and a fifth of the live ones, and none after the vacuum', async () => {
    await addSessions(db, 1_000);
    expect(await tablesWithDeadRows(db)).toEqual([]);
    // 150 dead of 1,000: under the line (50 + 200).
    await db.query(`UPDATE sessions SET closed_at = now() WHERE agent IN (SELECT 'agent-' || i FROM generate_series(1, 150) AS i)`);
    expect(await tablesWithDeadRows(db)).toEqual([]);
    await db.query(`DELETE FROM sessions WHERE agent IN (SELECT 'agent-' || i FROM generate_series(151, 400) AS i)`);
    expect(await tablesWithDeadRows(db)).toEqual(['sessions']);

    await vacuumTables(db, await tablesWithDeadRows(db));
    expect(await tablesWithDeadRows(db)).toEqual([]);
    const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM sessions`);
    expect(rows[0]?.n).toBe(750);
  });

  it('cleans the indexes of a drained table without a vector index, so its heap stops growing', async () => {
    const pages = async (relation: string): Promise<number> =>
      (await db.query<{ n: number }>(`SELECT (pg_relation_size($1) / 8192)::int AS n`, [relation])).rows[0]?.n ?? 0;
    const heap: number[] = [];
    // Sessions opened and closed all day: each round adds 2,000 rows and deletes them. Without the
    // index cleanup the heap keeps every dead line pointer and grows round after round (23 -> 47 pages).
    for (let round = 0; round < 5; round++) {
      await addSessions(db, 2_000);
      await db.query(`DELETE FROM sessions WHERE tenant_id = 'stats'`);
      await vacuumTables(db, await tablesWithDeadRows(db));
      heap.push(await pages('sessions'));
    }
    expect(heap[4]).toBeLessThanOrEqual(heap[0] ?? 0);
  });

  it('vacuums the learnt evidence without cleaning its indexes, like the cells (its HNSW graph would be repaired around each row)', async () => {
    const dims = (await db.query<{ n: number }>(`SELECT atttypmod AS n FROM pg_attribute WHERE attrelid = 'cell_evidence'::regclass AND attname = 'embedding'`)).rows[0]?.n ?? 0;
    const cell = '00000000-0000-4000-8000-000000000001';
    await db.query(
      `INSERT INTO cells (node_id, tenant_id, project, content, cell_type, salience, source_agent, embedding)
       VALUES ($1, 'stats', 'p', 'a judged memory', 'Fact', 0.5, 'a', array_fill(1::real, ARRAY[$2::int])::vector)`,
      [cell, dims],
    );
    await db.query(
      `INSERT INTO cell_evidence (evidence_id, tenant_id, node_id, embedding, weight, trust, agent, label, request_id, created_at)
       SELECT gen_random_uuid(), 'stats', $1, array_fill(((i % 7) + 1)::real, ARRAY[$2::int])::vector, 1, 1, 'a', 'agent', 'r' || i, now() FROM generate_series(1, 300) AS i`,
      [cell, dims],
    );
    await vacuumTables(db, ['cell_evidence']);
    const indexed = async (): Promise<number> =>
      (await db.query<{ n: number }>(`SELECT reltuples::int AS n FROM pg_class WHERE relname = 'cell_evidence_node'`)).rows[0]?.n ?? -1;
    const before = await indexed();
    await db.query(`DELETE FROM cell_evidence WHERE request_id <> 'r1'`);
    await vacuumTables(db, await tablesWithDeadRows(db));
    // The heap's dead rows are freed; the indexes were not scanned, so their statistics stand.
    expect(await tablesWithDeadRows(db)).toEqual([]);
    expect(await indexed()).toBe(before);
  });

  it('keeps a fifth of each cells page free (migration 0009), so hit count updates stay on their page', async () => {
    const { rows } = await db.query<{ options: string[] | null }>(`SELECT reloptions AS options FROM pg_class WHERE relname = 'cells'`);
    expect(rows[0]?.options).toContain('fillfactor=80');
    // Rows of a 384-d model's width: its vector stays inside the row (a 512-d one is stored apart).
    await db.query(
      `INSERT INTO cells (node_id, tenant_id, project, content, cell_type, salience, source_agent, embedding)
       SELECT gen_random_uuid(), 'stats', 'p', repeat('memory text ', 20 + i % 7), 'Fact', 0.5, 'a',
              (SELECT array_agg(((i * 31 + d) % 97) / 97.0)::real[] FROM generate_series(1, atttypmod) AS d)::vector
       FROM generate_series(1, 400) AS i, (SELECT atttypmod FROM pg_attribute WHERE attrelid = 'cells'::regclass AND attname = 'embedding') AS dim`,
    );
    const pages = async (): Promise<Map<string, string>> =>
      new Map((await db.query<{ id: string; page: string }>(`SELECT node_id::text AS id, (ctid::text::point)[0]::text AS page FROM cells`)).rows.map((r) => [r.id, r.page]));
    const before = await pages();
    await db.query(`UPDATE cells SET hits = hits + 1, reinforced_at = now() WHERE tenant_id = 'stats' AND hashtext(node_id::text) % 4 = 0`);
    const after = await pages();
    const updated = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM cells WHERE hits > 0`)).rows[0]?.n ?? 0;
    const moved = [...after].filter(([id, page]) => before.get(id) !== page).length;
    expect(updated).toBeGreaterThan(50);
    expect(moved).toBeLessThan(updated / 4);
  });
});
