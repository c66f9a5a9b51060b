import { afterEach, describe, expect, it } from 'vitest';
import { createTestDb } from '../../test/support/test-db.js';
import type { Db } from './db.js';
import { analyzeMemoryTables, analyzeTables, grownMemoryTables } from './statistics-repository.js';

async function addSessions(db: Db, count: number): Promise<void> {
  await db.query(
    `INSERT INTO sessions (session_id, tenant_id, agent, project, scene_id, opened_at)
     SELECT gen_random_uuid(), 'stats', 'agent-' || i, 'project-' || i, gen_random_uuid(), now() FROM generate_series(1, $1::int) AS i`,
    [count],
  );
}

describe('grownMemoryTables (the embedded analyzer check)', () => {
  let db: Db;
  afterEach(async () => {
    await db.close();
  });

  it('names exactly the memory tables whose heap outgrew their statistics, and none once analyzed', async () => {
    db = await createTestDb();
    await analyzeMemoryTables(db);
    expect(await grownMemoryTables(db)).toEqual([]);

    await addSessions(db, 2_000);
    expect(await grownMemoryTables(db)).toEqual(['sessions']);

    await analyzeTables(db, await grownMemoryTables(db));
    expect(await grownMemoryTables(db)).toEqual([]);
  });

  it('does not count growth within a tenth of the analyzed size', async () => {
    db = await createTestDb();
    await addSessions(db, 4_000);
    await analyzeMemoryTables(db);
    await addSessions(db, 100);
    expect(await grownMemoryTables(db)).toEqual([]);
  });
});
