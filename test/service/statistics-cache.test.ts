/**
 * The term statistics recall judges identifiers by are read from the planner's statistics of
 * cell_tenant_terms, in the background, at most once per TTL; a failed read keeps the last ones.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatisticsCache } from '../../src/service/recall/statistics-cache.js';
import type { Db } from '../../src/store/db.js';
import { cellTermsOf, tenantTermPrefix } from '../../src/store/lexical-terms.js';
import { estimatedHolders, readTermStatistics } from '../../src/store/term-statistics.js';
import { createTestDb } from '../support/test-db.js';

const DIMENSION = 8;

describe('term statistics cache', () => {
  let db: Db;
  let reads = 0;
  let failing = false;
  let counted: Db;

  beforeAll(async () => {
    db = await createTestDb({ dimension: DIMENSION });
    // 400 cells: every one holds "shared", one in four "quarter", one "once".
    await db.query(
      `INSERT INTO cells (node_id, tenant_id, project, content, cell_type, salience, source_agent, embedding)
       SELECT gen_random_uuid(), 't', 'p', 'shared ' || CASE WHEN g % 4 = 0 THEN 'quarter ' ELSE '' END || CASE WHEN g = 1 THEN 'once' ELSE '' END, 'Fact', 0.5, 'a',
         '[${Array.from({ length: DIMENSION }, () => '1').join(',')}]'::vector
       FROM generate_series(1, 400) g`,
    );
    await db.query(`INSERT INTO cell_tenant_terms (node_id, terms) SELECT node_id, ${cellTermsOf('$1::text', 'content', `'{}'::text[]`)} FROM cells`, [tenantTermPrefix('t')]);
    counted = {
      ...db,
      query: (sql, params) => {
        if (sql.includes('hyphae_term_statistics')) {
          reads += 1;
          if (failing) return Promise.reject(new Error('database unavailable'));
        }
        return db.query(sql, params);
      },
    };
  });
  afterAll(async () => db.close());

  it('answers nothing until a first read, made in the background, then the planner’s figures', async () => {
    let now = 0;
    const cache = new StatisticsCache(() => readTermStatistics(counted), undefined, 1_000, () => now);
    expect(cache.current()).toBeUndefined();
    await cache.settled();
    // Never analysed: no figures yet.
    expect(cache.current()).toEqual({ cells: 0, shares: new Map() });
    await db.query('ANALYZE cells, cell_tenant_terms');
    expect(cache.current()?.cells).toBe(0);
    now = 1_000;
    cache.current();
    await cache.settled();
    const statistics = cache.current();
    if (statistics === undefined) throw new Error('no statistics');
    expect(statistics.cells).toBe(400);
    expect(estimatedHolders(statistics, tenantTermPrefix('t') + 'share')).toBeCloseTo(400, 0);
    expect(estimatedHolders(statistics, tenantTermPrefix('t') + 'quarter')).toBeCloseTo(100, 0);
    expect(estimatedHolders(statistics, tenantTermPrefix('t') + 'absent')).toBe(0);
  });

  it('reads at most once per TTL, and keeps the last figures when a read fails', async () => {
    let now = 0;
    const errors: unknown[] = [];
    const cache = new StatisticsCache(() => readTermStatistics(counted), (error) => errors.push(error), 1_000, () => now);
    const before = reads;
    cache.current();
    cache.current();
    await cache.settled();
    now = 999;
    const first = cache.current();
    expect(reads - before).toBe(1);
    failing = true;
    now = 2_000;
    cache.current();
    await cache.settled();
    expect(reads - before).toBe(2);
    expect(errors).toHaveLength(1);
    expect(cache.current()).toBe(first);
    failing = false;
    now = 2_500;
    cache.current();
    await cache.settled();
    expect(reads - before).toBe(2);
  });
});
