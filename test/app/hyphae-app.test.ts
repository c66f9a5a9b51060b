import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHyphaeApp, type HyphaeApp, type HyphaeAppParts } from '../../src/app/index.js';
import { loadConfig } from '../../src/core/config.js';

describe('openHyphaeApp on an embedded data folder', () => {
  let dataDir: string;
  const open = (settings: Record<string, string> = {}, parts: HyphaeAppParts = {}): Promise<HyphaeApp> =>
    openHyphaeApp(loadConfig({ HYPHAE_DATA_DIR: dataDir, HYPHAE_EMBEDDER: 'hash', HYPHAE_DIFF_RETENTION_DAYS: '30', ...settings }), {
      command: 'app test',
      onBackgroundError: () => undefined,
      parts,
    });

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'hyphae-runtime-'));
  });
  afterAll(async () => rm(dataDir, { recursive: true, force: true }));

  it('bootstraps, stores and recalls; close flushes hits; a restart finds everything again', async () => {
    const first = await open();
    const admin = await first.keyAdmin.bootstrapAdminKey();
    expect(admin?.tenant).toBe('default');
    const principal = await first.facade.authenticate(admin?.key ?? '');
    const node = await first.facade.store(principal, { content: 'restart keeps memories', cell_type: 'Fact', salience: 0.5 });
    await first.facade.recall(principal, { query: 'restart keeps memories', k: 1 });
    await first.close();

    const second = await open();
    try {
      expect(await second.keyAdmin.bootstrapAdminKey()).toBeNull();
      const again = await second.facade.authenticate(admin?.key ?? '');
      const stored = await second.facade.getCell(again, node.node_id);
      expect(stored).toMatchObject({ content: 'restart keeps memories', hits: 1 });
    } finally {
      await second.close();
    }
  });

  it('gives the database sessions the configured HNSW scan settings', async () => {
    const runtime = await open({ HYPHAE_HNSW_EF_SEARCH: '64', HYPHAE_HNSW_ITERATIVE_SCAN: 'strict_order', HYPHAE_HNSW_MAX_SCAN_TUPLES: '30000' });
    try {
      expect(runtime.db.knn).toEqual({ efSearch: 64, iterativeScan: 'strict_order', maxScanTuples: 30_000 });
      const shown = await runtime.db.query<{ ef: string; scan: string; tuples: string }>(
        `SELECT current_setting('hnsw.ef_search') AS ef, current_setting('hnsw.iterative_scan') AS scan, current_setting('hnsw.max_scan_tuples') AS tuples`,
      );
      expect(shown.rows[0]).toEqual({ ef: '64', scan: 'strict_order', tuples: '30000' });
    } finally {
      await runtime.close();
    }
  });

  it('analyzes a growing embedded table on its own, long before the slow full pass (kNN plans follow table size)', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'hyphae-runtime-analyze-'));
    const runtime = await open({ HYPHAE_DATA_DIR: folder }, { maintenanceCheckIntervalMs: 50 });
    try {
      const key = await runtime.keyAdmin.createKey({ tenant: 'analyze', agent: 'writer', roles: ['writer'] });
      const principal = await runtime.facade.authenticate(key.key);
      // Statistics were taken on the empty table at start; every store below grows it.
      for (let i = 0; i < 400; i++) await runtime.facade.store(principal, { content: `memory ${i} about topic ${i % 37} and detail ${i * 7}`, cell_type: 'Fact', salience: 0.5 });
      const counted = async (): Promise<number> =>
        (await runtime.db.query<{ n: number }>(`SELECT reltuples::int AS n FROM pg_class WHERE relname = 'cells'`)).rows[0]?.n ?? 0;
      await expect.poll(counted, { timeout: 10_000, interval: 50 }).toBe(400);
      // Column statistics too: the planner now knows every cell is this tenant's L0 (it guessed 1 row before).
      const plan = await runtime.db.query<{ 'QUERY PLAN': string }>(`EXPLAIN SELECT node_id FROM cells WHERE tenant_id = 'analyze' AND layer = 'L0'`);
      expect(plan.rows[0]?.['QUERY PLAN']).toMatch(/rows=400 /);
    } finally {
      await runtime.close();
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('vacuums an embedded table on its own once a fifth of its rows are dead, and recall still finds every cell', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'hyphae-runtime-vacuum-'));
    const runtime = await open({ HYPHAE_DATA_DIR: folder }, { maintenanceCheckIntervalMs: 50 });
    try {
      const key = await runtime.keyAdmin.createKey({ tenant: 'vacuum', agent: 'writer', roles: ['writer', 'reader'] });
      const principal = await runtime.facade.authenticate(key.key);
      const contents = Array.from({ length: 300 }, (_, i) => `vacuum memory ${i} on subject ${i % 17} with detail ${i * 13}`);
      for (const content of contents) await runtime.facade.store(principal, { content, cell_type: 'Fact', salience: 0.5 });
      const vacuumed = async (): Promise<number> =>
        (await runtime.db.query<{ n: number }>(`SELECT vacuum_count::int AS n FROM pg_stat_user_tables WHERE relname = 'cells'`)).rows[0]?.n ?? 0;
      // The folder was vacuumed once when it opened; the next vacuum is the maintenance's own.
      expect(await vacuumed()).toBe(1);
      // Every cell's row rewritten (hits, as recall flushes do), then a tenth deleted: dead rows only a VACUUM frees.
      await runtime.db.query(`UPDATE cells SET hits = hits + 1 WHERE tenant_id = 'vacuum'`);
      const gone = (await runtime.db.query<{ id: string }>(`DELETE FROM cells WHERE tenant_id = 'vacuum' AND content LIKE '%0 on subject%' RETURNING node_id::text AS id`)).rows;
      expect(gone.length).toBe(30);
      await expect.poll(vacuumed, { timeout: 10_000, interval: 50 }).toBe(2);
      const kept = contents.filter((c) => !c.includes('0 on subject'));
      for (const content of kept.slice(0, 20)) {
        const found = await runtime.facade.recall(principal, { query: content, k: 1 }, { withNodes: true });
        expect(found.results[0]?.node?.content).toBe(content);
      }
    } finally {
      await runtime.close();
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('vacuums an embedded folder when it opens, since the dead-row counts of the last run are gone', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'hyphae-runtime-start-vacuum-'));
    try {
      const first = await open({ HYPHAE_DATA_DIR: folder });
      const key = await first.keyAdmin.createKey({ tenant: 'restart', agent: 'writer', roles: ['writer'] });
      const principal = await first.facade.authenticate(key.key);
      for (let i = 0; i < 100; i++) await first.facade.store(principal, { content: `restart memory ${i}`, cell_type: 'Fact', salience: 0.5 });
      await first.db.query(`DELETE FROM cells WHERE tenant_id = 'restart'`);
      await first.close();
      // No maintenance check during the test: only the vacuum at opening can have run.
      const second = await open({ HYPHAE_DATA_DIR: folder }, { maintenanceCheckIntervalMs: 3_600_000 });
      try {
        await second.db.query(`SELECT pg_stat_force_next_flush()`);
        const { rows } = await second.db.query<{ vacuums: number }>(`SELECT vacuum_count::int AS vacuums FROM pg_stat_user_tables WHERE relname = 'cells'`);
        expect(rows[0]?.vacuums).toBe(1);
      } finally {
        await second.close();
      }
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('refuses to start with another embedder than the one the database was created with', async () => {
    const other = open({ HYPHAE_EMBEDDER: 'use-lite' });
    await expect(other).rejects.toThrow(/hash-512/);
  });
});
