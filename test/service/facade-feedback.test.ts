/**
 * Feedback through the facade (docs/feedback.md) on PGlite and on PostgreSQL over the wire
 * (native PostgreSQL: test/store/feedback-native.test.ts): refusals, tenancy, the judged answer
 * unchanged, ranks on a hand-built log, labels, retention; and what a learner is handed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryFacade, type Judgement, type ManagedMemoryFacade } from '../../src/service/index.js';
import { createTestRuntime, TEST_DRIVERS, type TestRuntime } from '../support/test-runtime.js';
import { feedbackScenarios, handLoggedRequest } from '../support/feedback-scenarios.js';
import { freshTenant } from '../support/facade-expectations.js';

describe.each(TEST_DRIVERS)('feedback on %s', (driver) => {
  let rt: TestRuntime;
  beforeAll(async () => {
    rt = await createTestRuntime({ driver });
  });
  afterAll(async () => rt.close());
  feedbackScenarios(() => rt);

  describe('with a learner', () => {
    const judgements: Judgement[] = [];
    const failures: unknown[] = [];
    let failing = false;
    let facade: ManagedMemoryFacade;
    beforeAll(() => {
      const learner = {
        learn: async (judgement: Judgement): Promise<void> => {
          if (failing) throw new Error('the learner broke');
          judgements.push(judgement);
        },
      };
      facade = createMemoryFacade({ db: rt.db, embedder: rt.embedder, feedbackLearner: learner, onBackgroundError: (error) => failures.push(error), config: { hitFlushIntervalMs: 3_600_000 } });
    });
    afterAll(async () => facade.close());

    it('hands it each judgement with ground truth, after it is recorded, and nothing else', async () => {
      const tenant = freshTenant();
      const p = await rt.principal({ tenant, agent: 'judge', trust: 0.7, default_project: 'p' });
      const truth = (await facade.store(p, { content: 'the kiln cools for six hours', cell_type: 'Fact', salience: 0.5 })).node_id;
      const answer = await facade.recall(p, { query: 'how long does the kiln cool', k: 10 });
      await facade.submitFeedback(p, { request_id: answer.request_id, feedback: 'text only teaches nothing' });
      expect(judgements).toHaveLength(0);
      const receipt = await facade.submitFeedback(p, { request_id: answer.request_id, ground_truth_ids: [truth] });
      const [vector] = await rt.embedder.embed(['how long does the kiln cool']);
      expect(judgements).toHaveLength(1);
      expect(judgements[0]).toMatchObject({
        tenantId: tenant,
        project: 'p',
        feedbackId: receipt.feedback_id,
        requestId: answer.request_id,
        queryText: 'how long does the kiln cool',
        embeddingModel: rt.embedder.modelId,
        truthCellIds: [truth],
        agentId: 'judge',
        label: 'agent',
        senderTrust: 0.7,
      });
      judgements[0]?.queryEmbedding?.forEach((value, i) => expect(value).toBeCloseTo(vector?.[i] ?? Number.NaN, 5));
      const { rows } = await rt.db.query<{ n: number }>('SELECT count(*)::int AS n FROM recall_feedback WHERE feedback_id = $1', [receipt.feedback_id]);
      expect(rows[0]?.n).toBe(1);
    });

    it('gives no embedding of another model, and a source unranked by its first chunk', async () => {
      const tenant = freshTenant();
      const p = await rt.principal({ tenant, agent: 'judge', default_project: 'p' });
      await facade.ingestSource(p, { text: '# One\n\nThe first part.\n\n# Two\n\nThe second part.', format: 'markdown', source_id: 'guide' });
      const { rows } = await rt.db.query<{ node_id: string }>("SELECT node_id::text AS node_id FROM cells WHERE tenant_id = $1 AND source_id = 'guide' ORDER BY chunk_index LIMIT 1", [tenant]);
      const requestId = await handLoggedRequest({ facade, db: rt.db, principal: (spec) => rt.principal(spec) }, p, [], 'another-model');
      judgements.length = 0;
      await facade.submitFeedback(p, { request_id: requestId, ground_truth_ids: ['guide'] });
      expect(judgements[0]).toMatchObject({ queryEmbedding: null, embeddingModel: 'another-model', truthCellIds: [rows[0]?.node_id] });
    });

    it('keeps the feedback when the learner fails, and reports the failure', async () => {
      const p = await rt.principal({ tenant: freshTenant(), agent: 'judge' });
      const truth = (await facade.store(p, { content: 'the press runs at dawn', cell_type: 'Fact', salience: 0.5 })).node_id;
      const { request_id } = await facade.recall(p, { query: 'when does the press run', k: 10 });
      failing = true;
      try {
        const receipt = await facade.submitFeedback(p, { request_id, ground_truth_ids: [truth] });
        expect(receipt.truth_rank).toBe(1);
      } finally {
        failing = false;
      }
      expect(failures.map((error) => (error as Error).message)).toEqual(['the learner broke']);
    });
  });
});
