/**
 * Recall modes with the default embedder (docs/memory-model.md, "Recall and query"): an error code
 * a sentence embedding blurs into its near miss is found first by lexical and hybrid recall; pairs
 * that differ only in their subject are two cells, each found first by the question that names it;
 * every hit carries its cosine distance whatever ranked it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/core/principal.js';
import { createTestRuntime, TEST_DRIVERS, type TestRuntime } from '../support/test-runtime.js';
import { freshTenant } from '../support/facade-expectations.js';

const CODE = 'Billing API error E4012 means the card issuer declined the charge; retrying will not help.';
const NEAR_MISS = 'Billing API error E4021 means the card issuer timed out; retry after thirty seconds.';
const FALCON = 'Falcon chose Envoy over Nginx for the GraphQL gateway because it supports gRPC-Web natively.';
const HARBOR = 'Harbor chose Envoy over Nginx for the GraphQL gateway because it supports gRPC-Web natively.';

describe.each(TEST_DRIVERS)('recall modes on %s (minilm)', (driver) => {
  let rt: TestRuntime;
  let p: Principal;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    rt = await createTestRuntime({ driver, embedder: 'minilm' });
    p = await rt.principal({ tenant: freshTenant(), agent: 'a', default_project: 'p' });
    for (const [name, content] of Object.entries({ CODE, NEAR_MISS, FALCON, HARBOR })) {
      const stored = await rt.facade.store(p, { content, cell_type: 'Fact', salience: 0.5 });
      expect(stored.reinforced).toBe(false);
      ids[name] = stored.node_id;
    }
    for (const content of ['The ledger retries payouts every hour.', 'Checkout latency is tracked per payment method.', 'Gateways are deployed with blue/green.']) {
      await rt.facade.store(p, { content, cell_type: 'Fact', salience: 0.5 });
    }
  });
  afterAll(async () => rt.close());

  const first = async (query: string, mode?: 'vector' | 'lexical' | 'hybrid'): Promise<string | undefined> =>
    (await rt.facade.recall(p, { query, k: 5, ...(mode === undefined ? {} : { mode }) })).results[0]?.node_id;

  it('finds an error code first by lexical and hybrid recall where the vector ranks its near miss first', async () => {
    expect(await first('What does E4012 mean?', 'vector')).toBe(ids.NEAR_MISS);
    expect(await first('What does E4012 mean?', 'lexical')).toBe(ids.CODE);
    expect(await first('What does E4012 mean?', 'hybrid')).toBe(ids.CODE);
    expect(await first('What does E4012 mean?')).toBe(ids.CODE);
  });

  it('keeps two statements that differ only in their subject as two cells, each found by the question naming it', async () => {
    expect(ids.FALCON).not.toBe(ids.HARBOR);
    expect(await first('Which proxy does the Falcon team run in front of GraphQL?')).toBe(ids.FALCON);
    expect(await first('What did Harbor pick for their GraphQL gateway proxy?')).toBe(ids.HARBOR);
    expect((await rt.facade.getCell(p, ids.FALCON as string)).corroborations).toBe(0);
  });

  it('answers the cosine distance of every hit and a score that orders them', async () => {
    for (const mode of ['vector', 'lexical', 'hybrid'] as const) {
      const { results } = await rt.facade.recall(p, { query: 'What does E4012 mean?', k: 3, mode }, { withNodes: true });
      expect(results.length).toBeGreaterThan(0);
      for (const [i, hit] of results.entries()) {
        expect(hit.distance).toBeGreaterThanOrEqual(0);
        expect(hit.distance).toBeLessThanOrEqual(2);
        if (i > 0) expect(hit.score).toBeLessThanOrEqual(results[i - 1]?.score ?? 0);
      }
      if (mode === 'vector') for (const hit of results) expect(hit.score).toBeCloseTo(1 - hit.distance, 6);
    }
  });
});
