import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/core/principal.js';
import type { RecallResult } from '../../src/core/entities.js';
import { evidenceOf } from '../../src/store/cell-evidence-repository.js';
import { freshTenant } from '../support/facade-expectations.js';
import { skipWithoutPostgres } from '../support/real-postgres.js';
import { openLearningRuntime, type LearningBackend, type LearningRuntime } from './learning-runtime.js';

// The question shares no word with the answer and several with the near miss: feature hashing ranks the near miss first.
const ANSWER = 'The holiday release freeze starts on the fifteenth of December.';
const NEAR_MISS = 'Can we ship the christmas party photos over the shared drive?';
const OTHERS = ['Deploys need two approvals from the platform team.', 'The office closes early on Fridays in summer.', 'Billing exports run every night at two.'];
const QUESTION = 'can we ship code over christmas';

type Ranked = Pick<RecallResult['results'][number], 'node_id' | 'distance' | 'score'>[];
const ranking = (result: RecallResult): Ranked => result.results.map(({ node_id, distance, score }) => ({ node_id, distance, score }));

function describeLearningBounds(backend: LearningBackend, skip: boolean): void {
  describe.skipIf(skip)(`learning from ground truth stays in its bounds [${backend}]`, () => {
    let rt: LearningRuntime;
    beforeAll(async () => {
      rt = await openLearningRuntime(backend);
    });
    afterAll(async () => rt?.close());

    async function storeOthers(p: Principal): Promise<string> {
      const nearMiss = await rt.learning.store(p, { content: NEAR_MISS, cell_type: 'Fact', salience: 0.5 });
      for (const content of OTHERS) await rt.learning.store(p, { content, cell_type: 'Fact', salience: 0.5 });
      return nearMiss.node_id;
    }

    async function storeAll(p: Principal): Promise<{ answer: string; nearMiss: string }> {
      const answer = await rt.learning.store(p, { content: ANSWER, cell_type: 'Decision', salience: 0.5 });
      return { answer: answer.node_id, nearMiss: await storeOthers(p) };
    }

    it('lifts the judged answer for its question by its sender\'s trust times the gap: first in vector recall, by as much in hybrid', async () => {
      const p = await rt.principal(freshTenant(), 'a', 0.9);
      const { answer } = await storeAll(p);
      const hitOf = async (mode: 'vector' | 'hybrid'): Promise<{ first: string | undefined; hit: Ranked[number] | undefined }> => {
        const { results } = await rt.learning.recall(p, { query: QUESTION, k: 5, mode });
        return { first: results[0]?.node_id, hit: results.find((r) => r.node_id === answer) };
      };
      const [vectorBefore, hybridBefore] = [await hitOf('vector'), await hitOf('hybrid')];
      expect(vectorBefore.first).not.toBe(answer);
      await rt.judge(p, QUESTION, [answer]);
      expect(await evidenceOf(rt.db, p.tenantId, [answer])).toEqual([expect.objectContaining({ node_id: answer, weight: 0.9, trust: 0.9, agent: 'a', label: 'agent', query_text: QUESTION })]);
      const [vectorAfter, hybridAfter] = [await hitOf('vector'), await hitOf('hybrid')];
      expect(vectorAfter.first).toBe(answer);
      // The judged query itself: the evidence's similarity is 1, so the gain is the trust times the cell's own distance.
      const distance = vectorBefore.hit?.distance ?? NaN;
      expect(vectorAfter.hit?.distance).toBeCloseTo(distance, 6);
      expect(vectorAfter.hit?.score).toBeCloseTo(1 - distance + 0.9 * distance, 5);
      expect((hybridAfter.hit?.score ?? NaN) - (hybridBefore.hit?.score ?? NaN)).toBeCloseTo(0.9 * distance, 5);
      // Lexical recall ranks by words alone: it reads no evidence.
      const lexical = await rt.learning.recall(p, { query: QUESTION, k: 5, mode: 'lexical' });
      expect(lexical.results.map((r) => r.node_id)).toEqual((await rt.plain.recall(p, { query: QUESTION, k: 5, mode: 'lexical' })).results.map((r) => r.node_id));
    });

    it('learning off changes nothing: with evidence recorded, its results are byte-identical to those before it (request ids aside)', async () => {
      const p = await rt.principal(freshTenant(), 'a', 1);
      const { answer } = await storeAll(p);
      const modes = ['vector', 'hybrid'] as const;
      const before = await Promise.all(modes.map(async (mode) => JSON.stringify((await rt.plain.recall(p, { query: QUESTION, k: 5, mode })).results)));
      // Feedback to a server that does not learn records no evidence.
      await rt.judge(p, QUESTION, [answer], rt.plain);
      expect(await evidenceOf(rt.db, p.tenantId, [answer])).toEqual([]);
      await rt.judge(p, QUESTION, [answer]);
      expect(await evidenceOf(rt.db, p.tenantId, [answer])).toHaveLength(1);
      const after = await Promise.all(modes.map(async (mode) => JSON.stringify((await rt.plain.recall(p, { query: QUESTION, k: 5, mode })).results)));
      expect(after).toEqual(before);
      expect((await rt.learning.recall(p, { query: QUESTION, k: 5, mode: 'vector' })).results[0]?.node_id).toBe(answer);
    });

    it('deleting a judged cell deletes what was learnt for it', async () => {
      const p = await rt.principal(freshTenant(), 'a', 1);
      const { answer, nearMiss } = await storeAll(p);
      await rt.judge(p, QUESTION, [answer, nearMiss]);
      expect(await evidenceOf(rt.db, p.tenantId, [answer, nearMiss])).toHaveLength(2);
      await rt.learning.deleteCell(p, answer);
      expect(await evidenceOf(rt.db, p.tenantId, [answer, nearMiss])).toEqual([expect.objectContaining({ node_id: nearMiss })]);
      const rows = await rt.db.query<{ n: number }>('SELECT count(*)::int AS n FROM cell_evidence WHERE node_id = $1', [answer]);
      expect(rows.rows[0]?.n).toBe(0);
    });

    it('two tenants with the same texts: feedback in one leaves the other\'s rankings identical', async () => {
      const [one, two] = [await rt.principal(freshTenant(), 'a', 1), await rt.principal(freshTenant(), 'a', 1)];
      const [mine, theirs] = [await storeAll(one), await storeAll(two)];
      const recallOf = async (p: Principal): Promise<string[]> =>
        Promise.all((['vector', 'hybrid'] as const).map(async (mode) => JSON.stringify(ranking(await rt.learning.recall(p, { query: QUESTION, k: 5, mode })))));
      const theirsBefore = await recallOf(two);
      const mineBefore = await recallOf(one);
      await rt.judge(one, QUESTION, [mine.answer]);
      // Another tenant's cell ids are refused like missing ones: nothing is recorded for them.
      await expect(rt.judge(one, QUESTION, [theirs.answer])).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect(await evidenceOf(rt.db, two.tenantId, [theirs.answer])).toEqual([]);
      expect(await recallOf(one)).not.toEqual(mineBefore);
      expect(await recallOf(two)).toEqual(theirsBefore);
    });

    it('never lifts a cell min_trust filters out, and a sender below min_trust moves nothing', async () => {
      const tenant = freshTenant();
      const trusted = await rt.principal(tenant, 'trusted', 0.9);
      const doubtful = await rt.principal(tenant, 'doubtful', 0.2);
      const lowAnswer = (await rt.learning.store(doubtful, { content: ANSWER, cell_type: 'Decision', salience: 0.5 })).node_id;
      const nearMiss = await storeOthers(trusted);
      await rt.judge(trusted, QUESTION, [lowAnswer]);
      const filtered = await rt.learning.recall(trusted, { query: QUESTION, k: 10, mode: 'vector', min_trust: 0.5 });
      expect(filtered.results.map((r) => r.node_id)).not.toContain(lowAnswer);
      expect((await rt.learning.recall(trusted, { query: QUESTION, k: 10, mode: 'vector' })).results[0]?.node_id).toBe(lowAnswer);

      const other = 'who approves deploys';
      const before = await Promise.all([0.5, 0.2].map(async (min_trust) => ranking(await rt.learning.recall(trusted, { query: other, k: 5, mode: 'vector', min_trust }))));
      await rt.judge(doubtful, other, [nearMiss]);
      const [aboveSender, atSender] = await Promise.all([0.5, 0.2].map(async (min_trust) => ranking(await rt.learning.recall(trusted, { query: other, k: 5, mode: 'vector', min_trust }))));
      expect(aboveSender).toEqual(before[0]);
      // At the sender's own trust its evidence counts, for what its trust weighs.
      expect(atSender).not.toEqual(before[1]);
    });
  });
}

describeLearningBounds('pglite', false);
describeLearningBounds('native', skipWithoutPostgres());
