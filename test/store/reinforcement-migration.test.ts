/**
 * Migration 0006 on a database that already holds cells: existing cells start with no
 * corroboration and the highest trust among their author's keys, or 0.5 for an author with none.
 */
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrator.js';
import { MIGRATIONS_DIR, migrationsWithout, type MigrationsCopy } from './migrations-dir.js';
import { createTestDb } from '../support/test-db.js';

const IDENTITY = { modelId: 'hash-512-v1', dimension: 512 };
const ZERO_VECTOR = `[${new Array<number>(512).fill(0).join(',')}]`;

describe('migration 0006_reinforcement on existing cells', () => {
  let db: Db | undefined;
  let before: MigrationsCopy | undefined;
  afterAll(async () => {
    await db?.close();
    await before?.remove();
  });

  it('backfills corroborations, corroborators and the author trust', async () => {
    before = await migrationsWithout('0006_reinforcement.sql');
    const { dir } = before;
    db = await createTestDb({ migrated: false });
    await migrate(db, { ...IDENTITY, migrationsDir: dir });
    await db.query(`INSERT INTO tenants (tenant_id) VALUES ('t')`);
    for (const [n, trust] of [[1, 0.9], [2, 0.7]] as const) {
      await db.query(
        `INSERT INTO api_keys (key_id, tenant_id, agent, roles, projects, default_project, trust, key_hash, key_prefix)
         VALUES (gen_random_uuid(), 't', 'keyed', ARRAY['writer'], ARRAY['*'], 'p', $1, $2, 'hy_x')`,
        [trust, Buffer.from([n])],
      );
    }
    for (const agent of ['keyed', 'keyless']) {
      await db.query(
        `INSERT INTO cells (node_id, tenant_id, project, content, cell_type, salience, source_agent, embedding)
         VALUES (gen_random_uuid(), 't', 'p', $1, 'Fact', 0.5, $1, $2::vector)`,
        [agent, ZERO_VECTOR],
      );
    }

    await cp(join(MIGRATIONS_DIR, '0006_reinforcement.sql'), join(dir, '0006_reinforcement.sql'));
    expect((await migrate(db, { ...IDENTITY, migrationsDir: dir })).applied.map((m) => m.name)).toEqual(['reinforcement']);
    const { rows } = await db.query<{ source_agent: string; corroborations: number; corroborators: string[]; trust: number }>(
      `SELECT source_agent, corroborations, corroborators, trust FROM cells ORDER BY source_agent`,
    );
    expect(rows).toEqual([
      { source_agent: 'keyed', corroborations: 0, corroborators: [], trust: 0.9 },
      { source_agent: 'keyless', corroborations: 0, corroborators: [], trust: 0.5 },
    ]);
  });
});
