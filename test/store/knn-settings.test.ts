/**
 * The HNSW scan settings (src/store/knn-session.ts) reach every session of both drivers and do
 * what they are there for: with a filter that few rows pass, the iterative scan is what fills a
 * result, max_scan_tuples bounds it, and a larger k's ef_search stays inside its transaction.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { nearestCells, searchCells, type CellSearch, type KnnFilter } from '../../src/store/cell-search.js';
import type { Db } from '../../src/store/db.js';
import type { KnnSettings } from '../../src/store/knn-session.js';
import { applyMigrations } from '../../src/store/migrator.js';
import { openPgDb } from '../../src/store/pg-driver.js';
import { openPgliteDb } from '../../src/store/pglite-driver.js';
import { toVectorParam } from '../../src/store/vector-param.js';
import { toVectorText } from '../../src/store/vector-text.js';
import { createDatabase, skipWithoutPostgres, startRealPostgres, type RealPostgres } from '../support/real-postgres.js';

const DIMENSION = 8;
const ROWS = 4000;
// One row in 200 is a Risk: a kNN for Risks finds almost none among the graph's first candidates.
const RARE_EVERY = 200;
const K = 10;
const RARE: KnnFilter = { tenantId: 't', project: { kind: 'named', project: 'p' }, layer: 'L0', cellTypes: ['Risk'] };
const QUERY_VALUES = Array.from({ length: DIMENSION }, (_, i) => (i + 1) / DIMENSION);
const QUERY = toVectorText(QUERY_VALUES);
const QUERY_PARAM = toVectorParam(QUERY_VALUES);
const VECTOR_SEARCH: CellSearch = { mode: 'vector', vector: QUERY_PARAM, query: { text: 'cell', identifiers: [] }, weights: { identifier: 0, text: 0 }, recencyBias: 0 };

async function loadCells(db: Db): Promise<void> {
  await applyMigrations(db, { dimension: DIMENSION });
  await db.query('DROP INDEX cells_embedding');
  // A random vector per row (the subquery refers to g, so it is evaluated for every row).
  await db.query(
    `INSERT INTO cells (node_id, tenant_id, project, content, cell_type, salience, source_agent, embedding)
     SELECT gen_random_uuid(), 't', 'p', 'cell ' || g, CASE WHEN g % ${RARE_EVERY} = 0 THEN 'Risk' ELSE 'Fact' END, 0.5, 'a',
       ('[' || array_to_string(ARRAY(SELECT random() FROM generate_series(1, ${DIMENSION}) WHERE g > 0), ',') || ']')::vector
     FROM generate_series(1, ${ROWS}) g`,
  );
  await db.query('CREATE INDEX cells_embedding ON cells USING hnsw (embedding vector_cosine_ops)');
  await db.query('ANALYZE cells');
  // A small table would rather be scanned and sorted whole; the point here is the HNSW scan.
  await db.query('SET enable_seqscan = off; SET enable_sort = off');
}

async function show(db: Db, name: string): Promise<string> {
  const result = await db.query<Record<string, string>>(`SHOW ${name}`);
  return Object.values(result.rows[0] ?? {})[0] ?? '';
}

type Open = (knn: Partial<KnnSettings>) => Promise<Db>;

function describeSettings(name: string, skip: boolean, setUp: () => Promise<{ open: Open; close(): Promise<void> }>): void {
  describe.skipIf(skip)(`HNSW scan settings on ${name}`, () => {
    let open: Open;
    let close: () => Promise<void>;
    const opened: Db[] = [];
    const loaded = async (knn: Partial<KnnSettings>): Promise<Db> => {
      const db = await open(knn);
      opened.push(db);
      await loadCells(db);
      return db;
    };

    beforeAll(async () => {
      ({ open, close } = await setUp());
    });
    afterAll(async () => {
      await Promise.all(opened.map((db) => db.close()));
      await close();
    });

    it('gives the session the configured settings and keeps a larger k’s ef_search inside its transaction', async () => {
      const db = await loaded({ efSearch: 24, iterativeScan: 'strict_order', maxScanTuples: 5000 });
      expect(db.knn).toEqual({ efSearch: 24, iterativeScan: 'strict_order', maxScanTuples: 5000 });
      expect([await show(db, 'hnsw.ef_search'), await show(db, 'hnsw.iterative_scan'), await show(db, 'hnsw.max_scan_tuples')]).toEqual(['24', 'strict_order', '5000']);
      const hits = await searchCells(db, VECTOR_SEARCH, { ...RARE, cellTypes: ['Fact'] }, 100);
      expect(hits).toHaveLength(100);
      expect(await show(db, 'hnsw.ef_search')).toBe('24');
    });

    it('with the iterative scan a rare filter still fills k; without it, or capped by max_scan_tuples, it does not', async () => {
      const plan = async (db: Db): Promise<string> => {
        const result = await db.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN SELECT node_id FROM cells WHERE tenant_id = 't' AND cell_type = 'Risk' ORDER BY embedding <=> '${QUERY}'::vector LIMIT ${K}`,
        );
        return result.rows.map((r) => r['QUERY PLAN']).join('\n');
      };
      const iterative = await loaded({ efSearch: 10, iterativeScan: 'relaxed_order' });
      expect(await plan(iterative)).toContain('cells_embedding');
      expect(await nearestCells(iterative, QUERY_PARAM, RARE, K)).toHaveLength(K);
      const off = await loaded({ efSearch: 10, iterativeScan: 'off' });
      expect((await nearestCells(off, QUERY_PARAM, RARE, K)).length).toBeLessThan(K);
      const capped = await loaded({ efSearch: 10, iterativeScan: 'relaxed_order', maxScanTuples: 50 });
      expect((await nearestCells(capped, QUERY_PARAM, RARE, K)).length).toBeLessThan(K);
    });

    it('refuses settings out of range before opening anything', async () => {
      await expect(open({ efSearch: 0 })).rejects.toBeInstanceOf(InvalidArgumentError);
      await expect(open({ iterativeScan: 'sideways' as KnnSettings['iterativeScan'] })).rejects.toThrow(/iterativeScan/);
      await expect(open({ maxScanTuples: 1.5 })).rejects.toThrow(/maxScanTuples/);
    });
  });
}

describeSettings('PGlite', false, () => Promise.resolve({ open: (knn) => openPgliteDb({ knn }), close: () => Promise.resolve() }));

describeSettings('native PostgreSQL', skipWithoutPostgres(), async () => {
  const server: RealPostgres = await startRealPostgres();
  let databases = 0;
  return {
    // A database per pool (one connection, so the test's SET holds for every query).
    open: async (knn): Promise<Db> => {
      return openPgDb({ url: await createDatabase(server, `knn_${++databases}`), max: 1, knn });
    },
    close: () => server.close(),
  };
});
