/**
 * Learnt evidence keeps its vector in its row (migration 0040, docs/feedback-learning.md "What it
 * costs"), on PGlite and native PostgreSQL: recall compares every candidate's evidence with the
 * query, and a vector moved out of line to the TOAST table (a 512-dimension vector alone is past the
 * default 2 kB target) cost a lookup there for each comparison.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evidenceOf } from '../../src/store/cell-evidence-repository.js';
import { freshTenant } from '../support/facade-expectations.js';
import { skipWithoutPostgres } from '../support/real-postgres.js';
import { openLearningRuntime, type LearningBackend, type LearningRuntime } from './learning-runtime.js';

function describeEvidenceStorage(backend: LearningBackend, skip: boolean): void {
  describe.skipIf(skip)(`learnt evidence's storage [${backend}]`, () => {
    let rt: LearningRuntime;
    beforeAll(async () => {
      rt = await openLearningRuntime(backend);
    });
    afterAll(async () => rt?.close());

    it('keeps a 512-dimension evidence vector in its row: nothing goes to the TOAST table', async () => {
      expect(rt.embedder.dimension).toBe(512);
      const p = await rt.principal(freshTenant(), 'a', 1);
      const answer = (await rt.learning.store(p, { content: 'The holiday release freeze starts on the fifteenth of December.', cell_type: 'Fact', salience: 0.5 })).node_id;
      await rt.judge(p, 'can we ship code over christmas', [answer]);
      expect(await evidenceOf(rt.db, p.tenantId, [answer])).toHaveLength(1);
      const { rows } = await rt.db.query<{ toast: number }>("SELECT pg_relation_size(c.reltoastrelid)::int AS toast FROM pg_class c WHERE c.relname = 'cell_evidence'");
      expect(rows).toEqual([{ toast: 0 }]);
    });
  });
}

describeEvidenceStorage('pglite', false);
describeEvidenceStorage('native', skipWithoutPostgres());
