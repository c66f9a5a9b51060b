/** The feedback scenarios (docs/feedback.md), declared on any harness: test/service/facade-feedback.test.ts (PGlite, pg over the wire), test/store/feedback-native.test.ts (native PostgreSQL). */
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import type { Principal } from '../../src/core/principal.js';
import { purgeExpiredRecallRequests } from '../../src/mesh/retention.js';
import { findRecallRequest, insertRecallRequest } from '../../src/store/recall-log-repository.js';
import { toVectorParam } from '../../src/store/vector-param.js';
import { expectCode, expectInvalidField, freshTenant, MISSING_ID, refusalShape } from './facade-expectations.js';
import type { ScenarioHarness } from './scenario-harness.js';

/** Logs a request by hand: `resultIds` ranked in this order, as a recall would have logged it. */
export async function handLoggedRequest(h: ScenarioHarness, p: Principal, resultIds: readonly string[], embeddingModel = 'hand'): Promise<string> {
  const requestId = randomUUID();
  await insertRecallRequest(h.db, {
    tenantId: p.tenantId,
    requestId,
    agent: p.agent,
    human: false,
    operation: 'recall',
    projects: [p.defaultProject],
    queryText: 'a hand-built question',
    querySha256: '0'.repeat(64),
    queryEmbedding: toVectorParam([1, 0, 0]),
    embeddingModel,
    arguments: { k: resultIds.length },
    resultIds,
    createdAt: new Date(),
  });
  return requestId;
}

async function feedbackRows(h: ScenarioHarness, tenant: string): Promise<number> {
  const { rows } = await h.db.query<{ n: number }>('SELECT count(*)::int AS n FROM recall_feedback WHERE tenant_id = $1', [tenant]);
  return rows[0]?.n ?? -1;
}

/** Declares the scenarios (call inside a describe); h() answers the harness once its beforeAll ran. */
export function feedbackScenarios(h: () => ScenarioHarness): void {
  let serial = 0;
  const cell = async (p: Principal): Promise<string> => {
    serial += 1;
    const words = ['amber', 'birch', 'cobalt', 'delta', 'ember', 'fjord', 'garnet', 'harbor', 'indigo', 'juniper'];
    const content = `Memo ${serial}: the ${words[serial % words.length]} ${words[(serial * 3) % words.length]} ledger ${serial * 7919} settles at step ${serial}.`;
    return (await h().facade.store(p, { content, cell_type: 'Fact', salience: 0.5 })).node_id;
  };

  it('refuses a feedback with neither text nor ground truth before reading the request, and every out-of-bounds field', async () => {
    const p = await h().principal({ tenant: freshTenant(), agent: 'a' });
    for (const empty of [{ request_id: MISSING_ID }, { request_id: MISSING_ID, rating: 'negative' as const, metadata: { run: 'eval-1' } }]) {
      const error = await expectCode(h().facade.submitFeedback(p, empty), 'INVALID_ARGUMENT');
      expect(error.details).toMatchObject({ reason: 'feedback_empty' });
    }
    const request_id = MISSING_ID;
    await expectInvalidField(h().facade.submitFeedback(p, { request_id, feedback: 'x'.repeat(8_001) }), 'feedback');
    await expectInvalidField(h().facade.submitFeedback(p, { request_id, ground_truth_answer: 'x'.repeat(8_001) }), 'ground_truth_answer');
    await expectInvalidField(h().facade.submitFeedback(p, { request_id, ground_truth_ids: Array.from({ length: 101 }, () => randomUUID()) }), 'ground_truth_ids');
    await expectInvalidField(h().facade.submitFeedback(p, { request_id, ground_truth_ids: ['../etc'] }), 'ground_truth_ids.0');
    await expectInvalidField(h().facade.submitFeedback(p, { request_id, feedback: 'ok', metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`l${i}`, 'v'])) }), 'metadata');
    await expectInvalidField(h().facade.submitFeedback(p, { request_id, feedback: 'ok', rating: 'great' as never }), 'rating');
    await expectInvalidField(h().facade.submitFeedback(p, { request_id: 'not-a-uuid', feedback: 'ok' }), 'request_id');
    await expectInvalidField(h().facade.submitFeedback(p, { request_id, feedback: 'ok', tenant: 'other' } as never), 'tenant');
  });

  it("reads another tenant's request, or one outside the caller's projects, exactly as an unknown one", async () => {
    const tenant = freshTenant();
    const owner = await h().principal({ tenant, agent: 'owner', default_project: 'p' });
    const { request_id } = await h().facade.recall(owner, { query: 'ledger settles', k: 10 });
    const unknown = randomUUID();
    const expected = await refusalShape(h().facade.submitFeedback(owner, { request_id: unknown, feedback: 'missed' }), unknown);
    expect(expected).toMatchObject({ code: 'NOT_FOUND' });
    const stranger = await h().principal({ tenant: freshTenant(), agent: 'owner', default_project: 'p' });
    expect(await refusalShape(h().facade.submitFeedback(stranger, { request_id, feedback: 'missed' }), request_id)).toEqual(expected);
    const elsewhere = await h().principal({ tenant, agent: 'other', projects: ['q'], default_project: 'q' });
    expect(await refusalShape(h().facade.submitFeedback(elsewhere, { request_id, feedback: 'missed' }), request_id)).toEqual(expected);
    expect(await feedbackRows(h(), tenant)).toBe(0);
  });

  it('refuses ground-truth ids the caller cannot read exactly as missing ones, and records nothing', async () => {
    const tenant = freshTenant();
    const p = await h().principal({ tenant, agent: 'a', projects: ['p'], default_project: 'p' });
    const mine = await cell(p);
    const { request_id } = await h().facade.recall(p, { query: 'ledger settles', k: 10 });
    const foreign = await cell(await h().principal({ tenant: freshTenant(), agent: 'a' }));
    const hidden = await cell(await h().principal({ tenant, agent: 'admin', projects: ['secret'], default_project: 'secret' }));
    const missing = randomUUID();
    const expected = await refusalShape(h().facade.submitFeedback(p, { request_id, ground_truth_ids: [mine, missing] }), missing);
    expect(expected).toMatchObject({ code: 'NOT_FOUND' });
    for (const id of [foreign, hidden, 'no-such-source']) {
      expect(await refusalShape(h().facade.submitFeedback(p, { request_id, ground_truth_ids: [mine, id] }), id)).toEqual(expected);
    }
    expect(await feedbackRows(h(), tenant)).toBe(0);
  });

  it('refuses a ground-truth cell of a project the judged request did not search, even one the caller reads, as a missing one', async () => {
    const tenant = freshTenant();
    const p = await h().principal({ tenant, agent: 'a', projects: ['p', 'q'], default_project: 'p' });
    const mine = await cell(p);
    const elsewhere = await cell(await h().principal({ tenant, agent: 'b', projects: ['q'], default_project: 'q' }));
    const { request_id } = await h().facade.recall(p, { query: 'ledger settles', k: 10 });
    const missing = randomUUID();
    const expected = await refusalShape(h().facade.submitFeedback(p, { request_id, ground_truth_ids: [mine, missing] }), missing);
    expect(await refusalShape(h().facade.submitFeedback(p, { request_id, ground_truth_ids: [mine, elsewhere] }), elsewhere)).toEqual(expected);
    expect(await feedbackRows(h(), tenant)).toBe(0);
  });

  it('refuses an expired cell or source as ground truth exactly as a missing one: no read returns it from its expiry', async () => {
    const tenant = freshTenant();
    const p = await h().principal({ tenant, agent: 'a', default_project: 'p' });
    const gone = await cell(p);
    await h().facade.ingestSource(p, { text: 'The lapsed ledger settles never.', format: 'text', source_id: 'lapsed' });
    const { request_id } = await h().facade.recall(p, { query: 'ledger settles', k: 10 });
    // Past its expiry, whether or not a sweep has run (docs/expiry.md): moved back by hand, no clock waited on.
    await h().db.query("UPDATE cells SET expires_at = now() - interval '1 minute' WHERE tenant_id = $1", [tenant]);
    await h().db.query("UPDATE sources SET expires_at = now() - interval '1 minute' WHERE tenant_id = $1", [tenant]);
    const missing = randomUUID();
    const expected = await refusalShape(h().facade.submitFeedback(p, { request_id, ground_truth_ids: [missing] }), missing);
    for (const id of [gone, 'lapsed']) expect(await refusalShape(h().facade.submitFeedback(p, { request_id, ground_truth_ids: [id] }), id)).toEqual(expected);
    expect(await feedbackRows(h(), tenant)).toBe(0);
  });

  it('never changes the judged answer, its log row or any cell', async () => {
    const tenant = freshTenant();
    const p = await h().principal({ tenant, agent: 'a' });
    for (let i = 0; i < 4; i += 1) await cell(p);
    const args = { query: 'which ledger settles at step', k: 3, mode: 'vector' as const };
    const before = await h().facade.recall(p, args);
    const cells = async (): Promise<string> => JSON.stringify((await h().db.query('SELECT * FROM cells WHERE tenant_id = $1 ORDER BY node_id', [tenant])).rows);
    const cellsBefore = await cells();
    const logged = JSON.stringify(await findRecallRequest(h().db, tenant, before.request_id));
    const last = before.results.at(-1)?.node_id ?? '';
    const receipt = await h().facade.submitFeedback(p, { request_id: before.request_id, rating: 'negative', feedback: 'the last one was the answer', ground_truth_answer: 'step 4', ground_truth_ids: [last] });
    expect(receipt).toMatchObject({ request_id: before.request_id, label: 'agent', judged: true, truth_rank: 3 });
    const after = await h().facade.recall(p, args);
    expect(JSON.stringify(after.results)).toBe(JSON.stringify(before.results));
    expect(await cells()).toBe(cellsBefore);
    expect(JSON.stringify(await findRecallRequest(h().db, tenant, before.request_id))).toBe(logged);
  });

  it('ranks the truth on a hand-built log: rank 1, rank 4, not surfaced, the first of several, and a source by its chunk', async () => {
    const tenant = freshTenant();
    const p = await h().principal({ tenant, agent: 'a', default_project: 'p' });
    const ids: string[] = [];
    for (let i = 0; i < 6; i += 1) ids.push(await cell(p));
    await h().facade.ingestSource(p, { text: 'The harbor ledger settles nightly.', format: 'text', source_id: 'harbor-notes' });
    const { rows } = await h().db.query<{ node_id: string }>("SELECT node_id::text AS node_id FROM cells WHERE tenant_id = $1 AND source_id = 'harbor-notes'", [tenant]);
    const chunk = rows[0]?.node_id ?? '';
    const [c1, c2, c3, c4, c5, c6] = ids as [string, string, string, string, string, string];
    const requestId = await handLoggedRequest(h(), p, [c1, chunk, c2, c4, c5]);
    const rank = async (truth: string[]): Promise<number | null> => (await h().facade.submitFeedback(p, { request_id: requestId, ground_truth_ids: truth })).truth_rank;
    expect(await rank([c1])).toBe(1);
    expect(await rank([c4])).toBe(4);
    expect(await rank([c6])).toBeNull();
    expect(await rank([c3, c6])).toBeNull();
    expect(await rank([c5, c2])).toBe(3);
    expect(await rank(['harbor-notes'])).toBe(2);
    const textOnly = await h().facade.submitFeedback(p, { request_id: requestId, feedback: 'fine' });
    expect(textOnly).toMatchObject({ judged: false, truth_rank: null });
  });

  it('labels feedback by the credential — agent for a key, human for a console sign-in — and keeps it under the caller\'s tenant', async () => {
    const tenant = freshTenant();
    const p = await h().principal({ tenant, agent: 'a' });
    const { request_id } = await h().facade.recall(p, { query: 'anything at all', k: 10 });
    expect((await h().facade.submitFeedback(p, { request_id, feedback: 'useless' })).label).toBe('agent');
    const person: Principal = { ...p, agent: 'ada', human: true };
    expect((await h().facade.submitFeedback(person, { request_id, feedback: 'useless', metadata: { run: 'manual' } })).label).toBe('human');
    const { rows } = await h().db.query<{ agent: string; label: string; metadata: unknown }>('SELECT agent, label, metadata FROM recall_feedback WHERE request_id = $1 ORDER BY label', [request_id]);
    expect(rows).toEqual([
      { agent: 'a', label: 'agent', metadata: {} },
      { agent: 'ada', label: 'human', metadata: { run: 'manual' } },
    ]);
    expect(await feedbackRows(h(), tenant)).toBe(2);
  });

  it('judges a search of several projects only for a caller who can read them all, its sources in any of them', async () => {
    const tenant = freshTenant();
    const both = await h().principal({ tenant, agent: 'a', projects: ['p', 'q'], default_project: 'p' });
    await h().facade.ingestSource({ ...both, defaultProject: 'q' }, { text: 'The quarry ledger settles weekly.', format: 'text', source_id: 'quarry', project: 'q' });
    const answer = await h().facade.recall(both, { query: 'quarry ledger', k: 5 }, { projects: ['p', 'q'] });
    expect((await findRecallRequest(h().db, tenant, answer.request_id))?.projects).toEqual(['p', 'q']);
    const onlyP = await h().principal({ tenant, agent: 'b', projects: ['p'], default_project: 'p' });
    await expectCode(h().facade.submitFeedback(onlyP, { request_id: answer.request_id, feedback: 'missed' }), 'NOT_FOUND');
    expect((await h().facade.submitFeedback(both, { request_id: answer.request_id, ground_truth_ids: ['quarry'] })).truth_rank).toBe(1);
  });

  it('reads recall@1, recall@5, MRR and the share not surfaced from a hand-built log, and the worst-judged first (admin only)', async () => {
    const tenant = freshTenant();
    const p = await h().principal({ tenant, agent: 'judge', default_project: 'p' });
    const admin = await h().principal({ tenant, agent: 'lead', roles: ['admin'], default_project: 'p' });
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push(await cell(p));
    const [a, b, c, d, e] = ids as [string, string, string, string, string];
    const requestId = await handLoggedRequest(h(), p, [a, b, c, d]);
    for (const truth of [a, d, e]) await h().facade.submitFeedback(p, { request_id: requestId, ground_truth_ids: [truth] });
    await h().facade.submitFeedback(p, { request_id: requestId, feedback: 'not judged' });
    await expectCode(h().facade.feedbackQuality(p, {}), 'FORBIDDEN');
    const quality = await h().facade.feedbackQuality(admin, { days: 1 });
    expect(quality.days).toHaveLength(1);
    const [day] = quality.days;
    expect(day).toMatchObject({ label: 'agent', judged: 3 });
    expect(day?.recall_at_1).toBeCloseTo(1 / 3, 10);
    expect(day?.recall_at_5).toBeCloseTo(2 / 3, 10);
    expect(day?.mrr).toBeCloseTo((1 + 1 / 4) / 3, 10);
    expect(day?.not_surfaced).toBeCloseTo(1 / 3, 10);
    expect(quality.worst.map((w) => [w.truth_rank, w.truth])).toEqual([
      [null, [e]],
      [4, [d]],
      [1, [a]],
    ]);
    expect(quality.worst[0]).toMatchObject({ request_id: requestId, query: 'a hand-built question', returned: [a, b, c, d], agent: 'judge', label: 'agent' });
    const stranger = await h().principal({ tenant: freshTenant(), agent: 'lead', roles: ['admin'] });
    expect(await h().facade.feedbackQuality(stranger, {})).toEqual({ days: [], worst: [] });
  });

  it('goes with its request when the retention removes it', async () => {
    const tenant = freshTenant();
    const p = await h().principal({ tenant, agent: 'a' });
    const { request_id } = await h().facade.recall(p, { query: 'old question', k: 10 });
    await h().facade.submitFeedback(p, { request_id, feedback: 'noted' });
    await purgeExpiredRecallRequests(h().db, 7, new Date(Date.now() + 8 * 86_400_000));
    expect(await feedbackRows(h(), tenant)).toBe(0);
    await expectCode(h().facade.submitFeedback(p, { request_id, feedback: 'again' }), 'NOT_FOUND');
  });
}
