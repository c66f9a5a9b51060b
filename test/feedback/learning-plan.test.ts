/**
 * Through the facade, learnt vector recall takes the statement planned once (src/store/learnt-nearest.ts)
 * when the planner's statistics say the caller's tenant, layer and current project hold most of the
 * cells, and the statement planned per call otherwise: with a narrowing filter, for a tenant with few
 * of the cells, and with learning off (which reads no evidence at all).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/core/principal.js';
import { skipWithoutPostgres } from '../support/real-postgres.js';
import { openLearningRuntime, type LearningBackend, type LearningRuntime } from './learning-runtime.js';

const CELLS = 1_200;
const ONCE = 'hyphae_learnt_nearest';

function describeLearningPlan(backend: LearningBackend, skip: boolean): void {
  describe.skipIf(skip)(`which statement learnt vector recall takes through the facade [${backend}]`, () => {
    let rt: LearningRuntime;
    let large: Principal;
    let tiny: Principal;

    beforeAll(async () => {
      rt = await openLearningRuntime(backend, 'hash', { record: true });
      large = await rt.principal('large-tenant', 'a');
      tiny = await rt.principal('tiny-tenant', 'a');
      const dimension = rt.embedder.dimension;
      // The large tenant's cells in its agent's current project, bulk-written (the statement is what is tested, not the store).
      await rt.db.query(
        `INSERT INTO cells (node_id, tenant_id, project, content, cell_type, salience, source_agent, embedding)
         SELECT gen_random_uuid(), $1, $2, 'cell ' || g, 'Fact', 0.5, 'a',
           ('[' || array_to_string(ARRAY(SELECT random() FROM generate_series(1, ${dimension}) WHERE g > 0), ',') || ']')::vector
         FROM generate_series(1, ${CELLS}) g`,
        [large.tenantId, large.defaultProject],
      );
      for (const content of ['The tiny tenant ships on Fridays.', 'The tiny tenant freezes releases in December.']) {
        await rt.learning.store(tiny, { content, cell_type: 'Fact', salience: 0.5 });
      }
      await rt.db.query('ANALYZE cells');
    });
    afterAll(async () => rt?.close());

    /** The statements one recall ran. */
    async function statementsOf(recall: () => Promise<unknown>): Promise<string[]> {
      rt.statements.length = 0;
      await recall();
      return [...rt.statements];
    }

    it('takes the once-planned statement for the tenant holding most of the cells, once its statistics are read', async () => {
      let taken = false;
      // The statistics are read in the background after the first recall asks for them.
      for (let attempt = 0; attempt < 50 && !taken; attempt++) {
        const ran = await statementsOf(() => rt.learning.recall(large, { query: 'release freeze', k: 5, mode: 'vector' }));
        taken = ran.some((sql) => sql.includes(ONCE));
        if (!taken) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(taken).toBe(true);
      const withNodes = await statementsOf(() => rt.learning.recall(large, { query: 'release freeze', k: 5, mode: 'vector' }, { withNodes: true }));
      expect(withNodes.some((sql) => sql.includes(ONCE))).toBe(true);
    });

    it('keeps the statement planned per call with a narrowing filter, for a tenant with few of the cells, and with learning off', async () => {
      const narrowed = await statementsOf(() => rt.learning.recall(large, { query: 'release freeze', k: 5, mode: 'vector', cell_types: ['Fact'] }));
      const small = await statementsOf(() => rt.learning.recall(tiny, { query: 'release freeze', k: 5, mode: 'vector' }));
      const off = await statementsOf(() => rt.plain.recall(large, { query: 'release freeze', k: 5, mode: 'vector' }));
      for (const ran of [narrowed, small, off]) {
        expect(ran.some((sql) => sql.includes('ORDER BY embedding <=>'))).toBe(true);
        expect(ran.some((sql) => sql.includes(ONCE))).toBe(false);
      }
      const found = await rt.learning.recall(tiny, { query: 'release freeze', k: 5, mode: 'vector' });
      expect(found.results).toHaveLength(2);
    });
  });
}

describeLearningPlan('pglite', false);
describeLearningPlan('native', skipWithoutPostgres());
