import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyMigrations, loadMigrations, migrate } from '../../src/store/migrator.js';
import { openPgDb } from '../../src/store/pg-driver.js';
import { skipWithoutPostgres, startRealPostgres } from '../support/real-postgres.js';
import type { RealPostgres } from '../support/real-postgres.js';

// PGlite is one session, so only a real server shows the advisory lock serialising separate sessions.
describe.skipIf(skipWithoutPostgres())('migrations on a native PostgreSQL with pgvector', () => {
  let server: RealPostgres;
  let dir: string;
  beforeAll(async () => {
    server = await startRealPostgres();
    dir = await mkdtemp(join(tmpdir(), 'hyphae-pg-migrations-'));
    await writeFile(join(dir, '0001_first.sql'), 'CREATE TABLE first_table (id int PRIMARY KEY);\nSELECT pg_sleep(0.2);\n');
    await writeFile(join(dir, '0002_second.sql'), 'CREATE TABLE second_table (id int PRIMARY KEY, v text);\n');
    await writeFile(join(dir, '0003_third.sql'), 'ALTER TABLE second_table ADD COLUMN w int;\nCREATE INDEX second_w ON second_table (w);\n');
  });
  afterAll(async () => {
    await server?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('applies each migration exactly once when several sessions migrate at the same time', async () => {
    const replicas = await Promise.all(Array.from({ length: 4 }, () => openPgDb({ url: server.url, max: 2 })));
    try {
      const results = await Promise.all(replicas.map((db) => applyMigrations(db, { dimension: 8, migrationsDir: dir })));
      expect(results.flat().map((m) => m.version).sort()).toEqual([1, 2, 3]);
      const first = replicas[0];
      if (first === undefined) throw new Error('no replica');
      const { rows } = await first.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
      expect(rows.map((row) => row.version)).toEqual([1, 2, 3]);
      expect((await applyMigrations(first, { dimension: 8, migrationsDir: dir })).length).toBe(0);
    } finally {
      await Promise.all(replicas.map((db) => db.close()));
    }
  });

  it("applies the product's migrations (vector columns, HNSW indexes) once when replicas start together", async () => {
    const url = server.url.replace(/\/postgres$/, '/product');
    const admin = await openPgDb({ url: server.url, max: 1 });
    await admin.query('CREATE DATABASE product');
    await admin.close();
    const replicas = await Promise.all(Array.from({ length: 4 }, () => openPgDb({ url, max: 2 })));
    try {
      const files = await loadMigrations();
      const results = await Promise.all(replicas.map((db) => migrate(db, { modelId: 'hash-384', dimension: 384 })));
      const applied = results.flatMap((result) => result.applied.map((m) => m.version)).sort((a, b) => a - b);
      expect(applied).toEqual(files.map((m) => m.version));
      const first = replicas[0];
      if (first === undefined) throw new Error('no replica');
      const { rows } = await first.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_indexes WHERE indexdef LIKE '%USING hnsw%'",
      );
      expect(rows[0]?.n).toBeGreaterThan(0);
      expect(results.every((result) => result.identity.dimension === 384)).toBe(true);
    } finally {
      await Promise.all(replicas.map((db) => db.close()));
    }
  });

  it('returns the same row types as PGlite through the pg driver', async () => {
    const db = await openPgDb({ url: server.url, max: 1 });
    try {
      const { rows } = await db.query<Record<string, unknown>>(
        `SELECT 42::int8 AS big, 0.5::real AS fraction, '{"a":1}'::jsonb AS doc, ARRAY['x']::text[] AS list, count(*) AS n FROM (VALUES (1)) v`,
      );
      expect(rows[0]).toEqual({ big: 42, fraction: 0.5, doc: { a: 1 }, list: ['x'], n: 1 });
    } finally {
      await db.close();
    }
  });
});
