/**
 * Lexical and hybrid recall plan the same way on a database that has never been analysed (a fresh
 * folder, before autovacuum or the embedded maintenance ran): every cell a candidate list names is
 * read on its primary key. Once, with no statistics, the planner read each lexical match through
 * another index of cells, walking every cell of the project per match (777 ms at 1k cells).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchCells, type CellSearch, type KnnFilter } from '../../src/store/cell-search.js';
import type { Db } from '../../src/store/db.js';
import { cellTermsOf, tenantTermPrefix } from '../../src/store/lexical-terms.js';
import { applyMigrations } from '../../src/store/migrator.js';
import { openPgDb } from '../../src/store/pg-driver.js';
import { toVectorParam } from '../../src/store/vector-param.js';
import { skipWithoutPostgres, startRealPostgres, type RealPostgres } from '../support/real-postgres.js';
import { createTestDb } from '../support/test-db.js';

const DIMENSION = 8;
const ROWS = 1000;
const FILTER: KnnFilter = { tenantId: 't', project: { kind: 'current', agent: 'a', defaultProject: 'p', projects: null }, layer: 'L0' };
const QUERY = { text: 'shared group2 id42', identifiers: ['id42'] };
const VECTOR = toVectorParam(Array.from({ length: DIMENSION }, (_, i) => (i + 1) / DIMENSION));
const SEARCHES: Record<string, CellSearch> = {
  lexical: { mode: 'lexical', vector: VECTOR, query: QUERY, weights: { identifier: 0, text: 0 }, recencyBias: 0 },
  'hybrid, words and identifiers': { mode: 'hybrid', vector: VECTOR, query: QUERY, weights: { identifier: 1, text: 1 }, recencyBias: 0 },
  'hybrid, identifiers alone': { mode: 'hybrid', vector: VECTOR, query: QUERY, weights: { identifier: 0.2, text: 0 }, recencyBias: 0 },
  'hybrid with a recency bias': { mode: 'hybrid', vector: VECTOR, query: QUERY, weights: { identifier: 1, text: 1 }, recencyBias: 0.5 },
};

interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Relation Name'?: string;
  readonly 'Index Name'?: string;
  readonly 'Index Cond'?: string;
  readonly Filter?: string;
  readonly 'Recheck Cond'?: string;
  readonly Plans?: readonly PlanNode[];
}

/** Cells whose text is "shared groupN idM" (every cell holds "shared"; one in ten each group; one each id), and their terms; no ANALYZE. */
async function loadUnanalysedCells(db: Db): Promise<void> {
  await db.query(`ALTER TABLE cells SET (autovacuum_enabled = false); ALTER TABLE cell_tenant_terms SET (autovacuum_enabled = false)`);
  await db.query(
    `INSERT INTO cells (node_id, tenant_id, project, content, cell_type, salience, source_agent, embedding)
     SELECT gen_random_uuid(), 't', 'p', 'shared group' || (g % 10) || ' id' || g, 'Fact', 0.5, 'a',
       ('[' || array_to_string(ARRAY(SELECT random() FROM generate_series(1, ${DIMENSION}) WHERE g > 0), ',') || ']')::vector
     FROM generate_series(1, ${ROWS}) g`,
  );
  await db.query(`INSERT INTO cell_tenant_terms (node_id, terms) SELECT node_id, ${cellTermsOf('$1::text', 'content', `'{}'::text[]`)} FROM cells`, [tenantTermPrefix('t')]);
}

/** The statement searchCells sends, planned (EXPLAIN without ANALYZE: the plan, not its timing), and the search's hits. */
async function planOf(db: Db, search: CellSearch): Promise<{ scans: PlanNode[]; hits: string[] }> {
  let sent: { sql: string; params: readonly unknown[] | undefined } | undefined;
  const recording: Db = { ...db, query: (sql, params) => ((sent = { sql, params }), db.query(sql, params)) };
  const hits = await searchCells(recording, search, FILTER, 10, true);
  if (sent === undefined) throw new Error('searchCells sent no statement');
  const explained = await db.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${sent.sql}`, sent.params === undefined ? [] : [...sent.params]);
  const raw = explained.rows[0]?.['QUERY PLAN'];
  const [root] = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: PlanNode }[];
  const scans: PlanNode[] = [];
  const walk = (node: PlanNode): void => {
    if (node['Relation Name'] === 'cells' || node['Relation Name'] === 'cell_tenant_terms') scans.push(node);
    for (const child of node.Plans ?? []) walk(child);
  };
  if (root !== undefined) walk(root.Plan);
  return { scans, hits: hits.map((hit) => hit.cell?.content ?? '') };
}

const primaryKeyOf = (relation: string | undefined): string => `${relation ?? ''}_pkey`;
const readsOneCandidate = (scan: PlanNode): boolean => [scan['Index Cond'], scan.Filter, scan['Recheck Cond']].some((condition) => condition?.includes('node_id') === true);

function describePlans(name: string, skip: boolean, open: () => Promise<{ db: Db; close(): Promise<void> }>): void {
  describe.skipIf(skip)(`ranked search plans on a database never analysed (${name})`, () => {
    let db: Db;
    let close: () => Promise<void>;

    beforeAll(async () => {
      ({ db, close } = await open());
      await loadUnanalysedCells(db);
    });
    afterAll(async () => close?.());

    it('has no statistics of cells or cell_tenant_terms', async () => {
      const stats = await db.query<{ relname: string; reltuples: number }>(`SELECT relname, reltuples FROM pg_class WHERE relname IN ('cells', 'cell_tenant_terms') ORDER BY relname`);
      expect(stats.rows).toEqual([
        { relname: 'cell_tenant_terms', reltuples: -1 },
        { relname: 'cells', reltuples: -1 },
      ]);
    });

    for (const [mode, search] of Object.entries(SEARCHES)) {
      it(`${mode}: reads every candidate on the primary key, and scans cells otherwise only for the kNN`, async () => {
        const { scans, hits } = await planOf(db, search);
        const candidateReads = scans.filter(readsOneCandidate);
        expect(candidateReads.length).toBeGreaterThan(0);
        for (const scan of candidateReads) {
          const { 'Node Type': type, 'Relation Name': relation, 'Index Name': index, 'Index Cond': condition, Filter: filter } = scan;
          expect({ type, relation, index, condition, filter }).toMatchObject({ type: 'Index Scan', index: primaryKeyOf(relation), condition: expect.stringContaining('node_id') });
        }
        const otherScansOfCells = scans.filter((scan) => scan['Relation Name'] === 'cells' && !readsOneCandidate(scan));
        expect(otherScansOfCells).toHaveLength(search.mode === 'lexical' ? 0 : 1);
        if (search.weights.text > 0 || search.mode === 'lexical') expect(hits[0]).toBe('shared group2 id42');
      });
    }
  });
}

describePlans('PGlite', false, async () => {
  const db = await createTestDb({ dimension: DIMENSION });
  return { db, close: () => db.close() };
});

describePlans('native PostgreSQL', skipWithoutPostgres(), async () => {
  const server: RealPostgres = await startRealPostgres();
  const db = await openPgDb({ url: server.url, max: 1 });
  await applyMigrations(db, { dimension: DIMENSION });
  return {
    db,
    async close(): Promise<void> {
      await db.close();
      await server.close();
    },
  };
});
