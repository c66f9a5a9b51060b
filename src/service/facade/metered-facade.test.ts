import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../../../test/support/test-runtime.js';
import { meteredFacade } from './metered-facade.js';

describe('meteredFacade', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime();
  });
  afterAll(async () => {
    await runtime.close();
  });

  it('reports store and recall latencies and inbox/pull deliveries, and behaves as the facade', async () => {
    const seen = { store: 0, recall: 0, inbox: 0, pull: 0 };
    const facade = meteredFacade(runtime.facade, {
      observeStore: () => (seen.store += 1),
      observeRecall: () => (seen.recall += 1),
      countDiffsDelivered: (transport, count) => (seen[transport] += count),
      observeFeedback: () => undefined,
    });
    const owner = await runtime.principal({ tenant: 'metered', agent: 'owner' });
    const author = await runtime.principal({ tenant: 'metered', agent: 'author' });
    await facade.placeBeacon(owner, { text: 'database connection pool exhaustion', include_own: false, threshold: 0.3 });
    const node = await facade.store(author, { content: 'The database connection pool is exhausted under load', cell_type: 'Risk', salience: 0.9 });
    expect((await facade.getCell(author, node.node_id)).content).toContain('connection pool');
    await facade.recall(author, { query: 'connection pool', k: 5 });
    await facade.query(author, { query: 'connection pool', layer: 'L0', k: 5 });
    const pulled = await facade.pullDiffs(owner, { since: '2000-01-01T00:00:00Z', limit: 100 });
    const drained = await facade.drainInbox(owner, { page_size: 100 });
    expect(pulled.diffs.length).toBeGreaterThan(0);
    expect(seen).toEqual({ store: 1, recall: 2, inbox: drained.diffs.length, pull: pulled.diffs.length });
    expect(facade.config).toBe(runtime.facade.config);
  });

  it('still reports the latency of a failed store', async () => {
    let stores = 0;
    const facade = meteredFacade(runtime.facade, { observeStore: () => (stores += 1), observeRecall: () => undefined, countDiffsDelivered: () => undefined, observeFeedback: () => undefined });
    const author = await runtime.principal({ tenant: 'metered', agent: 'author' });
    await expect(facade.store(author, { content: '', cell_type: 'Fact', salience: 0.5 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(stores).toBe(1);
  });
});
