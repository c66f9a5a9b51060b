/**
 * Recall's filters and ranking controls (docs/memory-model.md, "Recall and query") in every mode, on
 * PGlite and on native PostgreSQL: metadata equality, source_agents, created_after/created_before,
 * min_trust, each applied inside the search (a filter that few cells pass still fills k), never
 * reaching another tenant's cells; recency_bias re-ranks and excludes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_MODES } from '../../src/core/cell-types.js';
import type { Principal } from '../../src/core/principal.js';
import { HashEmbedder } from '../../src/embed/hash-embedder.js';
import { createMemoryFacade, type ManagedMemoryFacade } from '../../src/service/index.js';
import { skipWithoutPostgres, startSharedDatabase } from '../support/shared-database.js';
import { createTestClock, createTestRuntime, type PrincipalSpec, type TestClock } from '../support/test-runtime.js';
import { expectInvalidField, freshTenant } from '../support/facade-expectations.js';

const DAY = 86_400_000;
const QUERY = 'deploy pipeline rollback';

interface Harness {
  readonly facade: ManagedMemoryFacade;
  readonly clock: TestClock;
  principal(spec: PrincipalSpec): Promise<Principal>;
  close(): Promise<void>;
}

async function pgliteHarness(): Promise<Harness> {
  const rt = await createTestRuntime({ driver: 'pglite' });
  return { facade: rt.facade, clock: rt.clock, principal: (spec) => rt.principal(spec), close: () => rt.close() };
}

async function nativeHarness(): Promise<Harness> {
  const embedder = new HashEmbedder();
  const database = await startSharedDatabase(embedder.dimension);
  const clock = createTestClock();
  const facade = createMemoryFacade({ db: await database.connect(4), embedder, clock: clock.now, authCacheTtlMs: 0, config: { hitFlushIntervalMs: 3_600_000 } });
  return {
    facade,
    clock,
    principal: async (spec) => facade.authenticate((await facade.keyAdmin.createKey({ ...spec })).key),
    async close(): Promise<void> {
      await facade.close();
      await database.close();
    },
  };
}

describe('recall filters and recency on PGlite', () => filterSuite(pgliteHarness));
describe.skipIf(skipWithoutPostgres())('recall filters and recency on native PostgreSQL', () => filterSuite(nativeHarness));

function filterSuite(open: () => Promise<Harness>): void {
  let h: Harness;
  let alice: Principal;
  let cells: Record<'c1' | 'c2' | 'c3' | 'c4', string>;
  let noise: string[];
  let started: number;

  beforeAll(async () => {
    h = await open();
    const tenant = freshTenant();
    alice = await h.principal({ tenant, agent: 'alice', default_project: 'p', trust: 0.3 });
    const bob = await h.principal({ tenant, agent: 'bob', default_project: 'p', trust: 0.9 });
    // Another tenant holding the same statements, by an agent of the same name, with the same metadata.
    const foreigner = await h.principal({ tenant: freshTenant(), agent: 'alice', default_project: 'p', trust: 0.9 });
    started = h.clock.now().getTime();
    const store = async (who: Principal, content: string, metadata: Record<string, unknown>): Promise<string> => {
      const stored = await h.facade.store(who, { content, cell_type: 'Decision', salience: 0.5, metadata });
      await h.facade.store(foreigner, { content, cell_type: 'Decision', salience: 0.5, metadata });
      h.clock.advance(DAY);
      return stored.node_id;
    };
    cells = {
      c1: await store(alice, 'The deploy pipeline can roll back a release in one step.', { team: 'payments', env: 'prod' }),
      c2: await store(bob, 'A deploy pipeline rollback restores the previous container image.', { team: 'search' }),
      c3: await store(alice, 'Rollback of the deploy pipeline is tested every sprint.', { team: 'payments', env: 'staging' }),
      c4: await store(bob, 'Every deploy pipeline must support rollback before it goes live.', { team: 'payments', env: 'prod', tier: 1 }),
    };
    // Bob's closer matches would fill a k-deep search on their own: a filter applied after it would come back short.
    noise = [];
    for (let i = 0; i < 30; i++) {
      noise.push((await h.facade.store(bob, { content: `Deploy pipeline rollback drill ${i}: deploy pipeline rollback checked.`, cell_type: 'Decision', salience: 0.5 })).node_id);
    }
  });
  afterAll(async () => h?.close());

  const ids = async (input: Record<string, unknown>): Promise<string[]> =>
    (await h.facade.recall(alice, { query: QUERY, k: 40, ...input })).results.map((r) => r.node_id);
  const at = (days: number): string => new Date(started + days * DAY).toISOString();

  it.each(SEARCH_MODES)('%s: every filter inside the search, never another tenant', async (mode) => {
    const { c1, c2, c3, c4 } = cells;
    const mine = new Set([c1, c2, c3, c4, ...noise]);
    for (const id of await ids({ mode })) expect(mine.has(id)).toBe(true);
    expect(new Set(await ids({ mode, metadata: { team: 'payments' } }))).toEqual(new Set([c1, c3, c4]));
    expect(new Set(await ids({ mode, metadata: { team: 'payments', env: 'prod' } }))).toEqual(new Set([c1, c4]));
    expect(await ids({ mode, metadata: { tier: 1 } })).toEqual([c4]);
    expect(new Set(await ids({ mode, source_agents: ['alice'] }))).toEqual(new Set([c1, c3]));
    expect(new Set(await ids({ mode, created_after: at(0.5), created_before: at(2.5) }))).toEqual(new Set([c2, c3]));
    expect(new Set(await ids({ mode, created_before: at(0.5) }))).toEqual(new Set([c1]));
    expect(new Set(await ids({ mode, min_trust: 0.5, metadata: { team: 'payments' } }))).toEqual(new Set([c4]));
    // k 2 among 34 cells, two of them Alice's: both come back although 30 closer ones are Bob's.
    expect(new Set((await h.facade.recall(alice, { query: QUERY, k: 2, mode, source_agents: ['alice'] })).results.map((r) => r.node_id))).toEqual(new Set([c1, c3]));
  });

  it.each(SEARCH_MODES)('%s: recency_bias moves newer cells up and keeps the same cells', async (mode) => {
    const filter = { mode, metadata: { team: 'payments' }, k: 3 };
    const byRelevance = await ids({ ...filter });
    const newestFirst = await ids({ ...filter, recency_bias: 1 });
    expect(newestFirst).toEqual([cells.c4, cells.c3, cells.c1]);
    expect(new Set(byRelevance)).toEqual(new Set(newestFirst));
    const { results } = await h.facade.recall(alice, { query: QUERY, ...filter, recency_bias: 1 });
    for (const hit of results) expect(hit.distance).toBeGreaterThanOrEqual(0);
  });

  it('refuses bad filters and modes by field', async () => {
    await expectInvalidField(h.facade.recall(alice, { query: QUERY, k: 5, recency_bias: 1.5 }), 'recency_bias');
    await expectInvalidField(h.facade.recall(alice, { query: QUERY, k: 5, mode: 'fuzzy' } as never), 'mode');
    await expectInvalidField(h.facade.recall(alice, { query: QUERY, k: 5, metadata: { team: { nested: true } } } as never), 'metadata.team');
    await expectInvalidField(h.facade.recall(alice, { query: QUERY, k: 5, min_trust: -0.1 }), 'min_trust');
    await expectInvalidField(h.facade.recall(alice, { query: QUERY, k: 5, created_after: 'yesterday' }), 'created_after');
    await expectInvalidField(h.facade.recall(alice, { query: QUERY, k: 5, source_agents: [] }), 'source_agents');
  });
}
