/**
 * Learnt vector recall planned once (src/store/learnt-nearest.ts, migration 0044): taken only for a
 * search the planner's statistics say covers most of the cells, with the default filters; it ranks
 * exactly as the statement planned per call, evidence and all, for every kind of project, with the
 * caller's project scope, another tenant's evidence on the same cells, and tied cells; a tenant
 * with few of the cells next to a large one keeps the statement planned for its values, which finds
 * its cells where the once-planned HNSW walk, capped by max_scan_tuples, does not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchCells, type CellSearch, type KnnFilter, type KnnHit } from '../../src/store/cell-search.js';
import { readCellStatistics, type CellStatistics } from '../../src/store/cell-statistics.js';
import type { Db } from '../../src/store/db.js';
import type { LearntEvidence } from '../../src/store/evidence-search.js';
import type { KnnSettings } from '../../src/store/knn-session.js';
import { learntNearestPlannedOnce, plannedOnce } from '../../src/store/learnt-nearest.js';
import { applyMigrations } from '../../src/store/migrator.js';
import { openPgDb } from '../../src/store/pg-driver.js';
import { openPgliteDb } from '../../src/store/pglite-driver.js';
import { toVectorParam } from '../../src/store/vector-param.js';
import { createDatabase, skipWithoutPostgres, startRealPostgres, type RealPostgres } from '../support/real-postgres.js';
import { recording } from '../support/recording-db.js';

const DIMENSION = 8;
const BIG_CELLS = 3000;
const TINY_CELLS = 5;
const QUERIES = 30;
const MIN_SIMILARITY = 0.5;

const queryVectors = Array.from({ length: QUERIES }, (_, i) => toVectorParam(Array.from({ length: DIMENSION }, (_, d) => ((i * 7 + d * 13) % 17) / 17 + 0.05)));
// A random vector of positive components per row (the subquery refers to g, so it is evaluated for every row).
const randomVector = (sign: '' | '-'): string => `('[' || array_to_string(ARRAY(SELECT ${sign}random() FROM generate_series(1, ${DIMENSION}) WHERE g > 0), ',') || ']')::vector`;

async function loadCells(db: Db): Promise<void> {
  await applyMigrations(db, { dimension: DIMENSION });
  const insert = (tenant: string, project: string, rows: number, extra: { layer?: string; expired?: boolean; superseded?: boolean; sign?: '' | '-' } = {}): Promise<unknown> =>
    db.query(
      `INSERT INTO cells (node_id, tenant_id, project, layer, content, cell_type, salience, source_agent, embedding, expires_at, valid_until)
       SELECT gen_random_uuid(), $1, $2, $3, 'cell ' || g, 'Fact', 0.5, 'a', ${randomVector(extra.sign ?? '')},
         CASE WHEN $4 THEN now() - interval '1 hour' END, CASE WHEN $5 THEN now() - interval '1 hour' END
       FROM generate_series(1, ${rows}) g`,
      [tenant, project, extra.layer ?? 'L0', extra.expired === true, extra.superseded === true],
    );
  await insert('big', 'p', BIG_CELLS);
  // What the default filters leave out, near the same queries: another project, another layer, expired, superseded.
  await insert('big', 'q', 100);
  await insert('big', 'p', 100, { layer: 'L1' });
  await insert('big', 'p', 50, { expired: true });
  await insert('big', 'p', 50, { superseded: true });
  // A tiny tenant far from every query: a walk of the HNSW graph towards the queries reaches it last.
  await insert('tiny', 'p', TINY_CELLS, { sign: '-' });
  // Evidence on half the big cells: its cell's vector moved a little, so about half of it is nearer a query than its cell and lifts it by various gains.
  await db.query(
    `INSERT INTO cell_evidence (evidence_id, tenant_id, node_id, embedding, weight, trust, agent, label, request_id, created_at)
     SELECT gen_random_uuid(), 'big', c.node_id, ('[' || array_to_string(ARRAY(SELECT x + 0.1 * random() FROM unnest(c.embedding::real[]) AS x), ',') || ']')::vector,
       0.2 + 0.6 * random(), 0.8, 'judge', 'agent', 'req-' || c.node_id, now()
     FROM cells c WHERE c.tenant_id = 'big' AND random() < 0.5`,
  );
  // Another tenant's evidence on every big cell, exactly the first query: counted, it would lift every candidate of that query.
  await db.query(
    `INSERT INTO cell_evidence (evidence_id, tenant_id, node_id, embedding, weight, trust, agent, label, request_id, created_at)
     SELECT gen_random_uuid(), 'other', c.node_id, $1::vector, 0.9, 0.9, 'judge', 'agent', 'other-' || c.node_id, now() FROM cells c WHERE c.tenant_id = 'big'`,
    [queryVectors[0]],
  );
  // Tied cells: two pairs, each the same vector (the second query's), so the order of their ids decides between them.
  await db.query(
    `INSERT INTO cells (node_id, tenant_id, project, content, cell_type, salience, source_agent, embedding)
     SELECT gen_random_uuid(), 'big', 'p', 'tied ' || g, 'Fact', 0.5, 'a', $1::vector FROM generate_series(1, 4) g`,
    [queryVectors[1]],
  );
  const openSession = (agent: string, project: string): Promise<unknown> =>
    db.query(`INSERT INTO sessions (tenant_id, session_id, agent, project, scene_id) VALUES ('big', gen_random_uuid(), $1, $2, gen_random_uuid())`, [agent, project]);
  await openSession('in-session', 'p');
  // A session in a project outside the caller's scope: the search falls back to the default project.
  await openSession('scoped', 'q');
  await db.query('ANALYZE cells, cell_evidence, sessions');
}

const search = (vector: CellSearch['vector'], learnt: LearntEvidence): CellSearch => ({
  mode: 'vector',
  vector,
  query: { text: 'cell', identifiers: [] },
  weights: { identifier: 0, text: 0 },
  recencyBias: 0,
  learnt,
});
const inSession: KnnFilter = { tenantId: 'big', layer: 'L0', project: { kind: 'current', agent: 'in-session', defaultProject: 'q', projects: null } };
const noSession: KnnFilter = { tenantId: 'big', layer: 'L0', project: { kind: 'current', agent: 'no-session', defaultProject: 'p', projects: ['p', 'q'] } };
const inScopedSession: KnnFilter = { tenantId: 'big', layer: 'L0', project: { kind: 'current', agent: 'in-session', defaultProject: 'q', projects: ['p', 'q'] } };
const outOfScopeSession: KnnFilter = { tenantId: 'big', layer: 'L0', project: { kind: 'current', agent: 'scoped', defaultProject: 'p', projects: ['p'] } };
const named: KnnFilter = { tenantId: 'big', layer: 'L0', project: { kind: 'named', project: 'p' } };
// Each search's current project as the facade resolves it: p for every one above.
const CURRENT = 'p';
const tiny: KnnFilter = { tenantId: 'tiny', layer: 'L0', project: { kind: 'named', project: 'p' } };

type Open = (knn: Partial<KnnSettings>) => Promise<Db>;

function describeLearntNearest(name: string, skip: boolean, setUp: () => Promise<{ open: Open; close(): Promise<void> }>): void {
  describe.skipIf(skip)(`learnt vector recall planned once on ${name}`, () => {
    let open: Open;
    let close: () => Promise<void>;
    const opened: Db[] = [];
    let db: Db;
    let statistics: CellStatistics;
    const loaded = async (knn: Partial<KnnSettings>): Promise<Db> => {
      const made = await open(knn);
      opened.push(made);
      await loadCells(made);
      return made;
    };

    beforeAll(async () => {
      ({ open, close } = await setUp());
      db = await loaded({});
      statistics = await readCellStatistics(db);
    });
    afterAll(async () => {
      await Promise.all(opened.map((made) => made.close()));
      await close();
    });

    it('reads how the cells are shared among tenants, layers and projects from the planner’s statistics', () => {
      const all = BIG_CELLS + 304 + TINY_CELLS;
      expect(statistics.cells).toBe(all);
      expect(statistics.shares.tenant_id.get('big')).toBeCloseTo((all - TINY_CELLS) / all, 2);
      expect(statistics.shares.project.get('p')).toBeCloseTo((all - 100) / all, 2);
      expect(statistics.shares.layer.get('L0')).toBeCloseTo((all - 100) / all, 2);
      expect(statistics.shares.project.get('q')).toBeCloseTo(100 / all, 2);
    });

    it('is taken for a search covering most of the cells with the default filters, and for no other', () => {
      const learnt: LearntEvidence = { minSimilarity: MIN_SIMILARITY, statistics, currentProject: CURRENT };
      expect([inSession, noSession, inScopedSession, outOfScopeSession, named].map((filter) => plannedOnce(filter, learnt))).toEqual([true, true, true, true, true]);
      // The current project weighs as a named one: a small one, or one not resolved, keeps the per-call plan.
      expect(plannedOnce(inSession, { ...learnt, currentProject: 'q' })).toBe(false);
      expect(plannedOnce(inSession, { minSimilarity: MIN_SIMILARITY, statistics })).toBe(false);
      const refused: KnnFilter[] = [
        tiny,
        { ...named, layer: 'L1' },
        { ...named, project: { kind: 'named', project: 'q' } },
        { ...named, project: { kind: 'projects', projects: ['p'] } },
        { ...named, cellTypes: ['Fact'] },
        { ...named, validity: { kind: 'at', asOf: new Date().toISOString() } },
        { ...named, validity: { kind: 'all' } },
      ];
      expect(refused.map((filter) => plannedOnce(filter, learnt))).toEqual(refused.map(() => false));
      expect(plannedOnce(named, { minSimilarity: MIN_SIMILARITY, statistics, minTrust: 0.5 })).toBe(false);
      expect(plannedOnce(named, { minSimilarity: MIN_SIMILARITY })).toBe(false);
    });

    it('ranks exactly as the statement planned per call, evidence and cells included, for every kind of project and k', async () => {
      const seen = recording(db);
      let lifted = 0;
      for (const filter of [inSession, noSession, inScopedSession, outOfScopeSession, named]) {
        for (const [k, withCells] of [[10, false], [10, true], [30, true]] as const) {
          for (const vector of queryVectors) {
            const perCall = await searchCells(db, search(vector, { minSimilarity: MIN_SIMILARITY }), filter, k, withCells);
            seen.statements.length = 0;
            const once: KnnHit[] = await searchCells(seen.db, search(vector, { minSimilarity: MIN_SIMILARITY, statistics, currentProject: CURRENT }), filter, k, withCells);
            expect(seen.statements.some((sql) => sql.includes('hyphae_learnt_nearest'))).toBe(true);
            expect(once).toEqual(perCall);
            expect(once).toHaveLength(k);
            lifted += once.filter((hit) => hit.score > 1 - hit.distance).length;
          }
        }
      }
      // The evidence counted: many hits were lifted above their own similarity.
      expect(lifted).toBeGreaterThan(QUERIES);
      // The tied cells came first for the second query, in the order of their ids as text.
      const tied = await searchCells(db, search(queryVectors[1] as CellSearch['vector'], { minSimilarity: MIN_SIMILARITY, statistics, currentProject: CURRENT }), named, 10, true);
      const tiedIds = tied.filter((hit) => hit.cell?.content.startsWith('tied ')).map((hit) => hit.node_id);
      expect(tiedIds).toHaveLength(4);
      expect(tiedIds).toEqual([...tiedIds].sort());
    });

    it('keeps the statement planned for its values for a tiny tenant next to a large one, which finds its cells where the HNSW walk does not', async () => {
      const capped = await loaded({ maxScanTuples: 50 });
      const cappedStatistics = await readCellStatistics(capped);
      const learnt: LearntEvidence = { minSimilarity: MIN_SIMILARITY, statistics: cappedStatistics, currentProject: CURRENT };
      const seen = recording(capped);
      const hits = await searchCells(seen.db, search(queryVectors[0] as CellSearch['vector'], learnt), tiny, 10);
      expect(seen.statements.some((sql) => sql.includes('hyphae_learnt_nearest'))).toBe(false);
      expect(hits).toHaveLength(TINY_CELLS);
      // Why the choice matters: the once-planned walk towards the query ends before it reaches the tiny tenant's cells.
      const walked = await learntNearestPlannedOnce(capped, queryVectors[0] as CellSearch['vector'], tiny, learnt, 20, 10, false);
      expect(walked.length).toBeLessThan(TINY_CELLS);
    });
  });
}

describeLearntNearest('PGlite', false, () => Promise.resolve({ open: (knn) => openPgliteDb({ knn }), close: () => Promise.resolve() }));

describeLearntNearest('native PostgreSQL', skipWithoutPostgres(), async () => {
  const server: RealPostgres = await startRealPostgres();
  let databases = 0;
  return {
    open: async (knn): Promise<Db> => openPgDb({ url: await createDatabase(server, `learnt_${++databases}`), max: 2, knn }),
    close: () => server.close(),
  };
});
