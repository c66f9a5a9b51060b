/**
 * Hybrid recall on identifiers alone leaves out of its lookups the identifiers the term statistics
 * say far more cells hold than its bound — the bound would drop them anyway — and finds the same
 * cells with the statistics as without; when no identifier is left, it is a plain kNN.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchCells, type CellSearch, type KnnFilter } from '../../src/store/cell-search.js';
import type { Db } from '../../src/store/db.js';
import { tenantTermPrefix } from '../../src/store/lexical-terms.js';
import { readTermStatistics, type TermStatistics } from '../../src/store/term-statistics.js';
import { toVectorParam } from '../../src/store/vector-param.js';
import { createTestDb } from '../support/test-db.js';

const DIMENSION = 8;
const FILTER: KnnFilter = { tenantId: 't', project: { kind: 'named', project: 'p' }, layer: 'L0' };
const VECTOR = toVectorParam(Array.from({ length: DIMENSION }, (_, i) => (i + 1) / DIMENSION));

function hybrid(identifiers: string[], termStatistics?: TermStatistics): CellSearch {
  return {
    mode: 'hybrid',
    vector: VECTOR,
    query: { text: identifiers.join(' '), identifiers },
    weights: { identifier: 0.2, text: 0 },
    recencyBias: 0,
    ...(termStatistics === undefined ? {} : { termStatistics }),
  };
}

describe('hybrid recall judges identifiers by the term statistics', () => {
  let db: Db;
  let statistics: TermStatistics;
  const sent: { sql: string; params: readonly unknown[] }[] = [];
  let recording: Db;

  beforeAll(async () => {
    db = await createTestDb({ dimension: DIMENSION });
    // 2 000 cells: every one names s3 (far beyond the bound of 100), one in twenty shard-7 (100), one id-42.
    await db.query(
      `INSERT INTO cells (node_id, tenant_id, project, content, cell_type, salience, source_agent, embedding)
       SELECT gen_random_uuid(), 't', 'p', 'stored in s3' || CASE WHEN g % 20 = 0 THEN ' shard-7' ELSE '' END || ' id-' || g, 'Fact', 0.5, 'a',
         ('[' || array_to_string(ARRAY(SELECT random() FROM generate_series(1, ${DIMENSION}) WHERE g > 0), ',') || ']')::vector
       FROM generate_series(1, 2000) g`,
    );
    await db.query(`INSERT INTO cell_tenant_terms (node_id, terms) SELECT node_id, ARRAY[$1] || ARRAY(SELECT $1 || w FROM unnest(tsvector_to_array(to_tsvector('simple', content))) AS w) FROM cells`,
      [tenantTermPrefix('t')],);
    await db.query('ANALYZE cells, cell_tenant_terms');
    statistics = await readTermStatistics(db);
    recording = { ...db, query: (sql, params) => (sent.push({ sql, params: params ?? [] }), db.query(sql, params)) };
  });
  afterAll(async () => db.close());

  // The identifiers the statement looks up, as the tenant's keys, read back as plain identifiers.
  const lookedUp = (): unknown[] =>
    (sent.at(-1)?.params ?? []).filter((param) => Array.isArray(param)).flat().map((key) => String(key).slice(tenantTermPrefix('t').length));

  it('reads the planner’s figures: s3 in every cell, id-42 in none it lists', () => {
    expect(statistics.cells).toBe(2000);
    expect(statistics.shares.get(tenantTermPrefix('t') + 's3')).toBeCloseTo(1, 2);
    expect(statistics.shares.has(tenantTermPrefix('t') + 'id-42')).toBe(false);
  });

  it('looks up no identifier the statistics call far too common, and finds the same cells', async () => {
    const without = await searchCells(recording, hybrid(['s3', 'shard-7', 'id-42']), FILTER, 10);
    expect(lookedUp()).toEqual(['s3', 'shard-7', 'id-42']);
    const withStatistics = await searchCells(recording, hybrid(['s3', 'shard-7', 'id-42'], statistics), FILTER, 10);
    expect(lookedUp()).toEqual(['shard-7', 'id-42']);
    expect(withStatistics).toEqual(without);
  });

  it('runs a plain kNN when every identifier of the query is that common', async () => {
    const hits = await searchCells(recording, hybrid(['s3'], statistics), FILTER, 10);
    expect(sent.at(-1)?.sql).not.toMatch(/cell_tenant_terms/);
    expect(hits).toEqual(await searchCells(db, hybrid(['s3']), FILTER, 10));
  });
});
