import { cp, mkdtemp, readdir, rm, unlink, writeFile, appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../core/errors.js';
import { describeEachDriver } from '../../test/support/each-driver.js';
import { createTestDb } from '../../test/support/test-db.js';
import type { Db } from './db.js';
import { EmbeddingModelMismatchError, MigrationError } from './errors.js';
import { applyMigrations, loadMigrations, migrate, readEmbeddingIdentity } from './migrator.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

async function columnType(db: Db, table: string): Promise<string | undefined> {
  const { rows } = await db.query<{ type: string }>(
    "SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname = 'embedding'",
    [table],
  );
  return rows[0]?.type;
}

async function appliedVersions(db: Db): Promise<number[]> {
  const { rows } = await db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
  return rows.map((row) => row.version);
}

describeEachDriver('migrate', ({ createDb }) => {
  let db: Db;
  afterEach(async () => {
    await db.close();
  });

  it('applies every migration once, records it, and is a no-op the second time', async () => {
    db = await createDb({ migrated: false });
    const files = await loadMigrations();
    const first = await migrate(db, { modelId: 'hash-512', dimension: 512 });
    expect(first.applied.map((m) => m.version)).toEqual(files.map((m) => m.version));
    expect(first.identity).toEqual({ modelId: 'hash-512', dimension: 512 });
    const { rows } = await db.query<{ version: number; name: string; checksum: string }>(
      'SELECT version, name, checksum FROM schema_migrations ORDER BY version',
    );
    expect(rows).toEqual(files.map(({ version, name, checksum }) => ({ version, name, checksum })));

    const second = await migrate(db, { modelId: 'hash-512', dimension: 512 });
    expect(second.applied).toEqual([]);
    expect(await appliedVersions(db)).toEqual(files.map((m) => m.version));
  });

  it('substitutes the embedding dimension into every vector column', async () => {
    db = await createDb({ migrated: false });
    await migrate(db, { modelId: 'tiny', dimension: 8 });
    expect(await columnType(db, 'cells')).toBe('vector(8)');
    expect(await columnType(db, 'beacons')).toBe('vector(8)');
  });

  it('refuses another model id or dimension than the one the database was created with', async () => {
    db = await createDb({ migrated: false });
    await migrate(db, { modelId: 'use-lite-v1', dimension: 512 });
    const otherModel = migrate(db, { modelId: 'hash-512', dimension: 512 });
    await expect(otherModel).rejects.toBeInstanceOf(EmbeddingModelMismatchError);
    await expect(otherModel).rejects.toThrow(/created with model use-lite-v1 \(512-d\).*--embedder.*hyphae reembed --embedder/);
    await expect(migrate(db, { modelId: 'use-lite-v1', dimension: 384 })).rejects.toMatchObject({
      code: 'CONFLICT',
      details: { recorded_dimension: 512, configured_dimension: 384 },
    });
    expect(await readEmbeddingIdentity(db)).toEqual({ modelId: 'use-lite-v1', dimension: 512 });
  });
});

describe('migrate on one database', () => {
  let db: Db;
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hyphae-migrations-'));
    await cp(MIGRATIONS_DIR, dir, { recursive: true });
  });
  afterEach(async () => {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('reports no identity before migration and before the first start records one', async () => {
    db = await createTestDb({ migrated: false });
    expect(await readEmbeddingIdentity(db)).toBeUndefined();
    await applyMigrations(db, { dimension: 512 });
    expect(await readEmbeddingIdentity(db)).toBeUndefined();
    await migrate(db, { modelId: 'm', dimension: 512 });
    expect(await readEmbeddingIdentity(db)).toEqual({ modelId: 'm', dimension: 512 });
  });

  it('refuses a dimension other than the schema of an unrecorded database', async () => {
    db = await createTestDb();
    await expect(migrate(db, { modelId: 'small', dimension: 384 })).rejects.toThrow(
      /created with model an unrecorded model \(512-d\)/,
    );
    expect(await readEmbeddingIdentity(db)).toBeUndefined();
  });

  it('refuses a mismatched embedder before applying a pending migration', async () => {
    db = await createTestDb({ migrated: false });
    await migrate(db, { modelId: 'm', dimension: 512, migrationsDir: dir });
    await writeFile(join(dir, '0900_more_vectors.sql'), 'CREATE TABLE more_vectors (v vector({{EMBEDDING_DIMENSION}}));\n');
    await expect(migrate(db, { modelId: 'm', dimension: 384, migrationsDir: dir })).rejects.toBeInstanceOf(
      EmbeddingModelMismatchError,
    );
    const { rows } = await db.query<{ exists: boolean }>("SELECT to_regclass('more_vectors') IS NOT NULL AS exists");
    expect(rows[0]?.exists).toBe(false);
  });

  it('fails when an applied migration file was changed', async () => {
    db = await createTestDb({ migrated: false });
    await migrate(db, { modelId: 'm', dimension: 512, migrationsDir: dir });
    await appendFile(join(dir, '0001_core.sql'), '\n-- edited after the fact\n');
    const tampered = migrate(db, { modelId: 'm', dimension: 512, migrationsDir: dir });
    await expect(tampered).rejects.toBeInstanceOf(MigrationError);
    await expect(tampered).rejects.toThrow(/0001_core was changed after it was applied/);
  });

  it('fails when the database holds a migration this code does not know', async () => {
    db = await createTestDb({ migrated: false });
    await migrate(db, { modelId: 'm', dimension: 512, migrationsDir: dir });
    const files = (await readdir(dir)).sort();
    const last = files[files.length - 1] ?? '';
    await unlink(join(dir, last));
    await expect(migrate(db, { modelId: 'm', dimension: 512, migrationsDir: dir })).rejects.toThrow(
      new RegExp(`${last.replace('.sql', '')}, which this version of hyphae does not know`),
    );
  });

  it('rolls a failing migration back whole and does not record it', async () => {
    db = await createTestDb({ migrated: false });
    await writeFile(join(dir, '9999_broken.sql'), 'CREATE TABLE half_done (x int);\nSELECT no_such_column FROM half_done;\n');
    await expect(migrate(db, { modelId: 'm', dimension: 512, migrationsDir: dir })).rejects.toMatchObject({ code: '42703' });
    const { rows } = await db.query<{ exists: boolean }>("SELECT to_regclass('half_done') IS NOT NULL AS exists");
    expect(rows[0]?.exists).toBe(false);
    expect(await appliedVersions(db)).not.toContain(9999);
    expect(await readEmbeddingIdentity(db)).toBeUndefined();
  });

  it('refuses a misnamed migration file and an unknown placeholder', async () => {
    db = await createTestDb({ migrated: false });
    await writeFile(join(dir, '0500_placeholder.sql'), 'CREATE TABLE t (v vector({{EMBEDDING_DIM}}));\n');
    await expect(migrate(db, { modelId: 'm', dimension: 512, migrationsDir: dir })).rejects.toThrow(
      /unknown placeholder \{\{EMBEDDING_DIM\}\}/,
    );
    await writeFile(join(dir, 'extra.sql'), 'SELECT 1;\n');
    await expect(loadMigrations(dir)).rejects.toThrow(/extra\.sql .* is not named NNNN_name\.sql/);
  });

  it('rejects a dimension pgvector cannot index', async () => {
    db = await createTestDb({ migrated: false });
    await expect(applyMigrations(db, { dimension: 4096 })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(applyMigrations(db, { dimension: 0 })).rejects.toBeInstanceOf(InvalidArgumentError);
  });
});
