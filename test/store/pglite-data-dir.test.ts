import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { DATA_DIR_LOCK_FILE, readDataDirLockHolder } from '../../src/store/data-dir-lock.js';
import { DataDirLockedError } from '../../src/store/errors.js';
import { migrate } from '../../src/store/migrator.js';
import { openDb } from '../../src/store/open-db.js';
import { openPgliteDb } from '../../src/store/pglite-driver.js';
import { parseVectorText, toVectorText } from '../../src/store/vector-text.js';
import { spawnDataDirHolder } from '../support/spawn-holder.js';
import { loadTemplate } from '../support/test-db.js';
import { startWireProtocolPostgres } from '../support/wire-postgres.js';

const IDENTITY = { modelId: 'hash-512', dimension: 512 };
const NODE_ID = '0b0f4f0e-8c51-4a8e-9a33-6f5f2f7d9c11';

function embedding(): Float32Array {
  return Float32Array.from({ length: 512 }, (_, i) => Math.sin(i + 1));
}

describe('PGlite on a data folder', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'hyphae-data-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('keeps what was written across a close and reopen, and releases the folder on close', async () => {
    const dataDir = join(root, '.hyphae');
    const first = await openPgliteDb({ dataDir, loadFrom: await loadTemplate() });
    await migrate(first, IDENTITY);
    await first.query(
      `INSERT INTO cells (node_id, tenant_id, project, content, cell_type, salience, source_agent, embedding)
       VALUES ($1, 't', 'p', 'persisted', 'Decision', 0.9, 'a', $2::vector)`,
      [NODE_ID, toVectorText(embedding())],
    );
    await first.close();
    expect(await readdir(dataDir)).not.toContain(DATA_DIR_LOCK_FILE);

    const second = await openPgliteDb({ dataDir });
    try {
      expect((await migrate(second, IDENTITY)).applied).toEqual([]);
      const { rows } = await second.query<{ content: string; embedding: string }>(
        "SELECT content, embedding::text AS embedding FROM cells WHERE tenant_id = 't' ORDER BY embedding <=> $1::vector LIMIT 1",
        [toVectorText(embedding())],
      );
      expect(rows[0]?.content).toBe('persisted');
      expect(parseVectorText(rows[0]?.embedding ?? '[]')).toEqual(embedding());
      await expect(openPgliteDb({ dataDir })).rejects.toBeInstanceOf(DataDirLockedError);
    } finally {
      await second.close();
    }
  });

  it('holds its own lock when seeded from a dump of another folder-backed database', async () => {
    const source = await openPgliteDb({ dataDir: join(root, 'source'), loadFrom: await loadTemplate(), lockCommand: 'source' });
    const dump = await source.pglite.dumpDataDir('none');
    const target = await openPgliteDb({ dataDir: join(root, 'target'), loadFrom: dump, lockCommand: 'target' });
    try {
      expect((await readDataDirLockHolder(join(root, 'target')))?.command).toBe('target');
    } finally {
      await target.close();
      await source.close();
    }
    expect(await readdir(join(root, 'target'))).not.toContain(DATA_DIR_LOCK_FILE);
    const reopened = await openPgliteDb({ dataDir: join(root, 'target') });
    await reopened.close();
  });

  it('refuses a folder another process has open, then recovers it after that process is killed', async () => {
    const dataDir = join(root, 'shared');
    const holder = await spawnDataDirHolder(dataDir, { templatePath: inject('hyphaeTestTemplates').migrated });
    try {
      const refused = openPgliteDb({ dataDir });
      await expect(refused).rejects.toThrow(`in use by pid ${holder.pid}`);
      await expect(refused).rejects.toThrow(/\(hyphae serve, started .*\); stop it or use --remote to share it/);
    } finally {
      await holder.kill();
    }
    const db = await openPgliteDb({ dataDir });
    try {
      const { rows } = await db.query<{ tenant_id: string }>("SELECT tenant_id FROM tenants WHERE tenant_id = 'written-by-child'");
      expect(rows).toEqual([{ tenant_id: 'written-by-child' }]);
    } finally {
      await db.close();
    }
  });
});

describe('openDb', () => {
  it('opens PGlite in the data folder without a database URL', async () => {
    const root = await mkdtemp(join(tmpdir(), 'hyphae-data-'));
    try {
      const db = await openDb({ dataDir: join(root, 'd'), databaseUrl: '' });
      try {
        expect(db.driver).toBe('pglite');
        expect(db.poolStats()).toEqual({ total: 1, idle: 1, waiting: 0, max: 1, acquireTimeouts: 0 });
      } finally {
        await db.close();
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('opens a pg pool when a database URL is set, ignoring the data folder', async () => {
    const server = await startWireProtocolPostgres();
    try {
      const db = await openDb({ databaseUrl: server.url, dataDir: '/nonexistent/never-created', poolMax: 3 });
      try {
        expect(db.driver).toBe('pg');
        await db.query('SELECT 1');
        expect(db.poolStats().total).toBeGreaterThanOrEqual(1);
      } finally {
        await db.close();
      }
    } finally {
      await server.close();
    }
  });

  it('reports an unreachable PostgreSQL as unavailable', async () => {
    await expect(openDb({ databaseUrl: 'postgresql://postgres@127.0.0.1:1/postgres', dataDir: '.' })).rejects.toMatchObject({
      code: 'UNAVAILABLE',
    });
  });
});
