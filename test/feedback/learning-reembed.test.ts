import { afterAll, describe, expect, it } from 'vitest';
import { MiniLmEmbedder } from '../../src/embed/minilm-embedder.js';
import { createEvidenceLearner } from '../../src/service/feedback/evidence-learner.js';
import { createMemoryFacade } from '../../src/service/index.js';
import { reembedDatabase } from '../../src/service/reembed/reembed-database.js';
import { evidenceOf } from '../../src/store/cell-evidence-repository.js';
import { freshTenant } from '../support/facade-expectations.js';
import { createTestRuntime, type TestRuntime } from '../support/test-runtime.js';

describe('a re-embed and learnt evidence', { timeout: 120_000 }, () => {
  let rt: TestRuntime | undefined;
  afterAll(async () => rt?.close());

  it('re-embeds evidence whose query text was kept and drops evidence logged as a hash only; recall with learning reads the new vectors', async () => {
    rt = await createTestRuntime({ embedder: 'hash' });
    const p = await rt.principal({ tenant: freshTenant(), agent: 'a', trust: 1 });
    const answer = (await rt.facade.store(p, { content: 'Steps to recover a forgotten login credential.', cell_type: 'Fact', salience: 0.5 })).node_id;
    const other = (await rt.facade.store(p, { content: 'The office closes early on Fridays.', cell_type: 'Fact', salience: 0.5 })).node_id;
    const learner = createEvidenceLearner({ db: rt.db, clock: () => new Date(), embeddingModel: rt.embedder.modelId, enabled: true });
    const judge = async (query: string, kept: boolean, truth: string): Promise<void> => {
      const [vector] = await rt!.embedder.embed([query]);
      const judgement = { tenantId: p.tenantId, project: 'default', feedbackId: query, requestId: query, embeddingModel: rt!.embedder.modelId, agentId: 'a', label: 'agent' as const, senderTrust: 1 };
      await learner.learn({ ...judgement, queryEmbedding: Array.from(vector ?? []), queryText: kept ? query : null, truthCellIds: [truth] });
    };
    await judge('How do I reset my password?', true, answer);
    await judge('When do we leave on Friday?', false, other);

    const minilm = new MiniLmEmbedder();
    expect(await reembedDatabase(rt.db, minilm, { batchSize: 8 })).toMatchObject({ status: 'done', rows: 3 });
    expect((await evidenceOf(rt.db, p.tenantId, [answer, other])).map((e) => e.node_id)).toEqual([answer]);
    const column = await rt.db.query<{ type: string }>(
      "SELECT format_type(a.atttypid, a.atttypmod) AS type FROM pg_attribute a WHERE a.attrelid = 'cell_evidence'::regclass AND a.attname = 'embedding'",
    );
    expect(column.rows).toEqual([{ type: 'vector(384)' }]);
    const [expected] = await minilm.embed(['How do I reset my password?']);
    const stored = await rt.db.query<{ embedding: string }>('SELECT embedding::text AS embedding FROM cell_evidence WHERE node_id = $1', [answer]);
    (JSON.parse(stored.rows[0]?.embedding ?? '[]') as number[]).forEach((x, i) => expect(x).toBeCloseTo(expected?.[i] ?? NaN, 5));
    const index = await rt.db.query("SELECT 1 FROM pg_indexes WHERE indexname = 'cell_evidence_embedding' AND indexdef LIKE '%hnsw%'");
    expect(index.rows).toHaveLength(1);

    const learning = createMemoryFacade({ db: rt.db, embedder: minilm, config: { hitFlushIntervalMs: 3_600_000, feedbackLearning: true } });
    try {
      const { results } = await learning.recall(p, { query: 'How do I reset my password?', k: 2, mode: 'vector' });
      expect(results[0]?.node_id).toBe(answer);
      expect(results[0]?.score).toBeGreaterThan(1 - (results[0]?.distance ?? 1));
    } finally {
      await learning.close();
      await minilm.close();
    }
  });
});
