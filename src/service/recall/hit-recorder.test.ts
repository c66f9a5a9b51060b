import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../../../test/support/test-db.js';
import { toVectorText } from '../../store/vector-text.js';
import { HitRecorder } from './hit-recorder.js';

describe('HitRecorder', () => {
  let db: TestDb;
  const clock = (): Date => new Date('2026-12-04T03:00:00Z');
  const unit = toVectorText(Array.from({ length: 512 }, (_, i) => (i === 0 ? 1 : 0)));

  beforeAll(async () => {
    db = await createTestDb();
  });
  afterAll(async () => db.close());

  const cell = async (tenantId: string): Promise<string> => {
    const nodeId = randomUUID();
    await db.query(
      `INSERT INTO cells (node_id, tenant_id, project, content, cell_type, salience, source_agent, embedding)
       VALUES ($1, $2, 'default', 'a cell', 'Fact', 0.5, 'author', $3::vector)`,
      [nodeId, tenantId, unit],
    );
    return nodeId;
  };
  const hitsOf = async (nodeIds: readonly string[]): Promise<number[]> => {
    const { rows } = await db.query<{ node_id: string; hits: number }>(`SELECT node_id::text AS node_id, hits FROM cells WHERE node_id = ANY($1::uuid[])`, [nodeIds]);
    return nodeIds.map((id) => rows.find((r) => r.node_id === id)?.hits ?? -1);
  };

  it('adds each recall of a cell to its tenant and cell, and one flush writes the sums', async () => {
    const [x, y, z] = [await cell('hits-a'), await cell('hits-a'), await cell('hits-b')];
    const recorder = new HitRecorder(db, { clock });
    recorder.record('hits-a', [x, y]);
    recorder.record('hits-a', [x]);
    recorder.record('hits-b', [z]);
    recorder.record('hits-b', []);
    expect(recorder.pendingCount).toBe(3);
    await recorder.flush();
    expect(recorder.pendingCount).toBe(0);
    // A hit kept under another tenant than its cell's would update no row (applyHits matches both).
    expect(await hitsOf([x, y, z])).toEqual([2, 1, 1]);
    await recorder.flush();
    expect(await hitsOf([x, y, z])).toEqual([2, 1, 1]);
  });

  it('keeps the counts of a flush that failed, adds what is recorded meanwhile, and writes them once', async () => {
    const [x, y] = [await cell('hits-c'), await cell('hits-d')];
    // The real database, its statements held until released: a recall can come in while a flush waits on it.
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const recorder = new HitRecorder({ query: async (sql, params) => held.then(() => db.query(sql, params)) }, { clock });
    recorder.record('hits-c', [x]);
    recorder.record('hits-c', [x]);
    recorder.record('hits-d', [y]);
    await db.query('ALTER TABLE cells RENAME TO cells_away');
    try {
      const failed = recorder.flush().then(
        () => undefined,
        (error: unknown) => error,
      );
      await new Promise((resolve) => setImmediate(resolve));
      recorder.record('hits-c', [x]);
      release();
      expect(String(await failed)).toMatch(/cells/);
    } finally {
      await db.query('ALTER TABLE cells_away RENAME TO cells');
    }
    expect(recorder.pendingCount).toBe(2);
    await recorder.flush();
    expect(await hitsOf([x, y])).toEqual([3, 1]);
    expect(recorder.pendingCount).toBe(0);
  });
});
