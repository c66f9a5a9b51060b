import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeExpiredRecallRequests } from '../../src/mesh/retention.js';
import { findRecallRequest } from '../../src/store/recall-log-repository.js';
import { createTestRuntime, TEST_DRIVERS, type TestRuntime } from '../support/test-runtime.js';
import { freshTenant } from '../support/facade-expectations.js';

const DAY_MS = 86_400_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

describe.each(TEST_DRIVERS)('the recall log on %s', (driver) => {
  let rt: TestRuntime;

  beforeAll(async () => {
    rt = await createTestRuntime({ driver });
  });
  afterAll(async () => rt.close());

  it('names every recall and query answer with a fresh request_id and logs who asked, what, how and what was ranked', async () => {
    const tenant = freshTenant();
    const p = await rt.principal({ tenant, agent: 'planner' });
    await rt.facade.store(p, { content: 'the ledger retries payments with exponential backoff', cell_type: 'Pattern', salience: 0.5 });
    await rt.facade.store(p, { content: 'the ledger settles payments nightly', cell_type: 'Fact', salience: 0.5 });
    const first = await rt.facade.recall(p, { query: 'ledger payments backoff', k: 2, mode: 'vector' });
    const second = await rt.facade.recall(p, { query: 'ledger payments backoff', k: 2, mode: 'vector' });
    expect(first.request_id).toMatch(UUID);
    expect(second.request_id).not.toBe(first.request_id);

    const row = await findRecallRequest(rt.db, tenant, first.request_id);
    expect(row).toMatchObject({
      requestId: first.request_id,
      agent: 'planner',
      human: false,
      operation: 'recall',
      project: 'default',
      queryText: 'ledger payments backoff',
      querySha256: sha256('ledger payments backoff'),
      embeddingModel: rt.embedder.modelId,
      resultIds: first.results.map((hit) => hit.node_id),
    });
    expect(row?.arguments).toMatchObject({ k: 2, mode: 'vector' });
    expect(row?.arguments).not.toHaveProperty('query');
    const [vector] = await rt.embedder.embed(['ledger payments backoff']);
    expect(row?.queryEmbedding).toHaveLength(rt.embedder.dimension);
    row?.queryEmbedding.forEach((value, i) => expect(value).toBeCloseTo(vector?.[i] ?? Number.NaN, 5));
  });

  it('logs a query with its layer, and the project a session made current', async () => {
    const tenant = freshTenant();
    const p = await rt.principal({ tenant, agent: 'a' });
    await rt.facade.openSession(p, { project: 'billing', title: 'work' });
    const answer = await rt.facade.query(p, { query: 'invoices', layer: 'L1', k: 3 });
    const row = await findRecallRequest(rt.db, tenant, answer.request_id);
    expect(row).toMatchObject({ operation: 'query', project: 'billing', resultIds: [] });
    expect(row?.arguments).toMatchObject({ layer: 'L1', k: 3 });
  });

  it("reads another tenant's request as no request at all", async () => {
    const tenant = freshTenant();
    const p = await rt.principal({ tenant, agent: 'a' });
    const answer = await rt.facade.recall(p, { query: 'anything', k: 1 });
    expect(await findRecallRequest(rt.db, tenant, answer.request_id)).not.toBeNull();
    expect(await findRecallRequest(rt.db, freshTenant(), answer.request_id)).toBeNull();
  });

  it('removes requests older than the retention, and only those', async () => {
    const tenant = freshTenant();
    const p = await rt.principal({ tenant, agent: 'a' });
    const old = await rt.facade.recall(p, { query: 'an old question', k: 1 });
    rt.clock.advance(5 * DAY_MS);
    const recent = await rt.facade.recall(p, { query: 'a recent question', k: 1 });
    await purgeExpiredRecallRequests(rt.db, 7, new Date(rt.clock.now().getTime() + 3 * DAY_MS));
    expect(await findRecallRequest(rt.db, tenant, old.request_id)).toBeNull();
    expect(await findRecallRequest(rt.db, tenant, recent.request_id)).not.toBeNull();
  });
});

describe('the recall log with HYPHAE_RECALL_LOG_TEXT=off', () => {
  let rt: TestRuntime;

  beforeAll(async () => {
    rt = await createTestRuntime({ facade: { recallLogText: false } });
  });
  afterAll(async () => rt.close());

  it('keeps the SHA-256 of the query and never its text', async () => {
    const tenant = freshTenant();
    const p = await rt.principal({ tenant, agent: 'a' });
    const answer = await rt.facade.recall(p, { query: 'the private question', k: 1 });
    const row = await findRecallRequest(rt.db, tenant, answer.request_id);
    expect(row).toMatchObject({ queryText: null, querySha256: sha256('the private question') });
    const { rows } = await rt.db.query<{ n: number }>("SELECT count(*)::int AS n FROM recall_requests WHERE arguments::text LIKE '%private%' OR query_text IS NOT NULL");
    expect(rows[0]?.n).toBe(0);
  });
});
