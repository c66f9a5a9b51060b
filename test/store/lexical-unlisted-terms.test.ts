/**
 * A term the planner's statistics do not list is counted on the GIN index, not guessed from the
 * rarest listed term. On a large table the statistics list only the most common terms, each held by
 * many cells; half the rarest one's frequency then put every unlisted term — every name, number and
 * ticket — above the lookup bound, and lexical recall, and hybrid recall that weighs words, looked
 * nothing up. The statistics target of 1 here (ten listed terms) stands for that table at 3 000 cells.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchCells, type CellSearch, type KnnFilter } from '../../src/store/cell-search.js';
import type { Db } from '../../src/store/db.js';
import { cellTermsOf, tenantTermPrefix } from '../../src/store/lexical-terms.js';
import { readTermStatistics, type TermStatistics } from '../../src/store/term-statistics.js';
import { toVectorParam } from '../../src/store/vector-param.js';
import { createTestDb } from '../support/test-db.js';

const DIMENSION = 8;
const CELLS = 3000;
const FILTER: KnnFilter = { tenantId: 't', project: { kind: 'named', project: 'p' }, layer: 'L0' };
const VECTOR = toVectorParam(Array.from({ length: DIMENSION }, (_, i) => (i + 1) / DIMENSION));
const COMMON = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima'];

function search(mode: 'lexical' | 'hybrid', text: string): CellSearch {
  return { mode, vector: VECTOR, query: { text, identifiers: [] }, weights: { identifier: 0.2, text: 0.5 }, recencyBias: 0 };
}

describe('lexical recall counts the terms the statistics do not list', () => {
  let db: Db;
  let statistics: TermStatistics;
  let ticket: string;

  beforeAll(async () => {
    db = await createTestDb({ dimension: DIMENSION });
    await db.query(
      `INSERT INTO cells (node_id, tenant_id, project, content, cell_type, salience, source_agent, embedding)
       SELECT gen_random_uuid(), 't', 'p', $1 || ' ticket' || g, 'Fact', 0.5, 'a',
         ('[' || array_to_string(ARRAY(SELECT random() FROM generate_series(1, ${DIMENSION}) WHERE g > 0), ',') || ']')::vector
       FROM generate_series(1, ${CELLS}) g`,
      [COMMON.join(' ')],
    );
    await db.query(`INSERT INTO cell_tenant_terms (node_id, terms) SELECT node_id, ${cellTermsOf('$1::text', 'content', `'{}'::text[]`)} FROM cells`, [tenantTermPrefix('t')]);
    await db.query('ALTER TABLE cell_tenant_terms ALTER COLUMN terms SET STATISTICS 1');
    await db.query('ANALYZE cells, cell_tenant_terms');
    statistics = await readTermStatistics(db);
    ticket = (await db.query<{ node_id: string }>(`SELECT node_id::text AS node_id FROM cells WHERE content LIKE '% ticket1234'`)).rows[0]?.node_id ?? '';
  });
  afterAll(async () => db.close());

  it('has statistics that list only terms every cell holds, and not the ticket', () => {
    expect(statistics.cells).toBe(CELLS);
    expect(statistics.shares.size).toBeGreaterThan(0);
    expect([...statistics.shares.values()].every((share) => share > 0.99)).toBe(true);
    expect(statistics.shares.has(tenantTermPrefix('t') + 'ticket1234')).toBe(false);
  });

  it('lexical recall finds the one cell holding an unlisted term', async () => {
    const hits = await searchCells(db, search('lexical', 'ticket1234'), FILTER, 5);
    expect(hits.map((hit) => hit.node_id)).toEqual([ticket]);
  });

  it('hybrid recall that weighs words ranks that cell first', async () => {
    const hits = await searchCells(db, search('hybrid', 'ticket1234'), FILTER, 5);
    expect(hits[0]?.node_id).toBe(ticket);
  });

  it('still looks up no unlisted term more cells hold than the bound', async () => {
    const unlisted = COMMON.find((word) => !statistics.shares.has(tenantTermPrefix('t') + word));
    expect(unlisted).toBeDefined();
    expect(await searchCells(db, search('lexical', unlisted ?? ''), FILTER, 5)).toEqual([]);
  });
});
