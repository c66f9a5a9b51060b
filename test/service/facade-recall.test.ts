import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, TEST_DRIVERS, type TestRuntime } from '../support/test-runtime.js';
import { expectInvalidField, freshTenant } from '../support/facade-expectations.js';

const DAY_MS = 86_400_000;

describe.each(TEST_DRIVERS)('recall, query, energy and promotion on %s', (driver) => {
  let rt: TestRuntime;

  beforeAll(async () => {
    rt = await createTestRuntime({ driver });
  });
  afterAll(async () => rt.close());

  const hitsOf = async (nodeId: string): Promise<number> => {
    const { rows } = await rt.db.query<{ hits: number }>('SELECT hits FROM cells WHERE node_id = $1', [nodeId]);
    return rows[0]?.hits ?? -1;
  };

  it('returns the k best L0 cells of the current project, ids, distances and scores only, best first', async () => {
    const p = await rt.principal({ tenant: freshTenant(), agent: 'a' });
    const target = await rt.facade.store(p, { content: 'the ledger service retries payments with exponential backoff', cell_type: 'Pattern', salience: 0.5 });
    await rt.facade.store(p, { content: 'the image resizer runs on spot instances', cell_type: 'Fact', salience: 0.5 });
    await rt.facade.store(p, { content: 'deploys happen on tuesdays', cell_type: 'Task', salience: 0.5 });
    const { results } = await rt.facade.recall(p, { query: 'ledger payments exponential backoff', k: 2 });
    expect(results).toHaveLength(2);
    expect(results[0]?.node_id).toBe(target.node_id);
    expect(Object.keys(results[0] ?? {}).sort()).toEqual(['distance', 'node_id', 'score']);
    expect(results[0]?.score ?? 0).toBeGreaterThanOrEqual(results[1]?.score ?? 2);
    const hydrated = await rt.facade.recall(p, { query: 'ledger payments exponential backoff', k: 1 }, { withNodes: true });
    expect(hydrated.results[0]?.node?.content).toBe(target.content);
  });

  it('filters by cell_types and scene_id and searches only the current project', async () => {
    const p = await rt.principal({ tenant: freshTenant(), agent: 'a' });
    const inDefault = await rt.facade.store(p, { content: 'cache invalidation policy for sessions', cell_type: 'Decision', salience: 0.5 });
    const session = await rt.facade.openSession(p, { project: 'other', title: 'cache work' });
    const risk = await rt.facade.store(p, { content: 'cache invalidation risk in the session store', cell_type: 'Risk', salience: 0.5 });
    const fact = await rt.facade.store(p, { content: 'cache invalidation happens every minute', cell_type: 'Fact', salience: 0.5 });
    const ids = async (input: Parameters<typeof rt.facade.recall>[1]): Promise<string[]> =>
      (await rt.facade.recall(p, input)).results.map((r) => r.node_id);
    expect((await ids({ query: 'cache invalidation', k: 10 })).sort()).toEqual([risk.node_id, fact.node_id].sort());
    expect(await ids({ query: 'cache invalidation', k: 10, cell_types: ['Risk'] })).toEqual([risk.node_id]);
    expect((await ids({ query: 'cache invalidation', k: 10, scene_id: session.scene_id })).sort()).toEqual([risk.node_id, fact.node_id].sort());
    await rt.facade.closeSession(p, { session_id: session.session_id });
    expect(await ids({ query: 'cache invalidation', k: 10 })).toEqual([inDefault.node_id]);
  });

  it('query searches an explicit layer', async () => {
    const p = await rt.principal({ tenant: freshTenant(), agent: 'a' });
    const s = await rt.facade.openSession(p, { project: 'p', title: 'incident' });
    await rt.facade.store(p, { content: 'The checkout API timed out. Connection pool was exhausted.', cell_type: 'Lesson', salience: 0.8 });
    const l1 = await rt.facade.consolidateScene(p, s.scene_id);
    expect((await rt.facade.query(p, { query: 'checkout timeout', layer: 'L1', k: 5 })).results.map((r) => r.node_id)).toEqual([l1.node_id]);
    expect((await rt.facade.query(p, { query: 'checkout timeout', layer: 'L2', k: 5 })).results).toEqual([]);
    await expectInvalidField(rt.facade.query(p, { query: 'x', layer: 'L9', k: 5 } as never), 'layer');
    await expectInvalidField(rt.facade.recall(p, { query: 'x', k: 101 }), 'k');
    await expectInvalidField(rt.facade.recall(p, { query: 'x', k: 5, cell_types: ['Nope'] } as never), 'cell_types.0');
  });

  it('counts hits in memory and writes them only when flushed (recall never writes on its hot path)', async () => {
    const p = await rt.principal({ tenant: freshTenant(), agent: 'a' });
    const node = await rt.facade.store(p, { content: 'rate limiter uses a token bucket', cell_type: 'Fact', salience: 0.5 });
    await rt.facade.recall(p, { query: 'token bucket rate limiter', k: 1 });
    await rt.facade.recall(p, { query: 'token bucket rate limiter', k: 1 });
    expect(await hitsOf(node.node_id)).toBe(0);
    await rt.facade.flushHits();
    expect(await hitsOf(node.node_id)).toBe(2);
    expect((await rt.facade.getCell(p, node.node_id)).hits).toBe(2);
  });

  it('energy decays with the half-life of the type and recovers when the cell is recalled', async () => {
    const p = await rt.principal({ tenant: freshTenant(), agent: 'a' });
    const node = await rt.facade.store(p, { content: 'context about the warehouse schema', cell_type: 'Context', salience: 0.5 });
    // Context: w = 0.4, h = 3 days; energy = 0.4 · (0.5 + 0.5) · 2^(−age/3d) · (1 + ln(1 + hits)).
    expect(node.energy).toBeCloseTo(0.4, 3);
    rt.clock.advance(3 * DAY_MS);
    expect((await rt.facade.getCell(p, node.node_id)).energy).toBeCloseTo(0.2, 3);
    await rt.facade.recall(p, { query: 'warehouse schema context', k: 1 });
    await rt.facade.flushHits();
    expect((await rt.facade.getCell(p, node.node_id)).energy).toBeCloseTo(0.4 * (1 + Math.log(2)), 3);
  });

  it('promotes a Decision with enough hits and energy to one L2 copy and leaves non-promotable types alone', async () => {
    const p = await rt.principal({ tenant: freshTenant(), agent: 'a' });
    const decision = await rt.facade.store(p, { content: 'all services expose OpenTelemetry traces', cell_type: 'Decision', salience: 0.9 });
    const fact = await rt.facade.store(p, { content: 'OpenTelemetry traces are sampled at ten percent', cell_type: 'Fact', salience: 1 });
    await rt.facade.recall(p, { query: 'OpenTelemetry traces', k: 2 });
    await rt.facade.flushHits();
    // One hit is below minHits (2): no promotion yet.
    expect((await rt.facade.listCells(p, { limit: 50, layer: 'L2' })).items).toEqual([]);
    await rt.facade.recall(p, { query: 'OpenTelemetry traces', k: 2 });
    await rt.facade.flushHits();
    const l2 = (await rt.facade.listCells(p, { limit: 50, layer: 'L2' })).items;
    expect(l2).toHaveLength(1);
    expect(l2[0]).toMatchObject({ content: decision.content, cell_type: 'Decision', layer: 'L2', source_agent: 'a' });
    const { rows } = await rt.db.query<{ origin: string }>('SELECT origin_node_id::text AS origin FROM cells WHERE node_id = $1', [l2[0]?.node_id]);
    expect(rows[0]?.origin).toBe(decision.node_id);
    expect(fact.cell_type).toBe('Fact');
    // Further hits never create a second copy.
    await rt.facade.recall(p, { query: 'OpenTelemetry traces', k: 2 });
    await rt.facade.flushHits();
    expect((await rt.facade.listCells(p, { limit: 50, layer: 'L2' })).items).toHaveLength(1);
    expect((await rt.facade.query(p, { query: 'OpenTelemetry traces', layer: 'L2', k: 5 })).results.map((r) => r.node_id)).toEqual([l2[0]?.node_id]);
  });

  it('does not promote a decayed low-salience Lesson whose energy stays below the threshold', async () => {
    const p = await rt.principal({ tenant: freshTenant(), agent: 'a' });
    await rt.facade.store(p, { content: 'lesson: never run migrations during peak', cell_type: 'Lesson', salience: 0 });
    for (let i = 0; i < 3; i++) {
      await rt.facade.recall(p, { query: 'migrations during peak', k: 1 });
      await rt.facade.flushHits();
    }
    // 0.8 · 0.5 · (1 + ln 4) ≈ 0.95 < 1.5
    expect((await rt.facade.listCells(p, { limit: 50, layer: 'L2' })).items).toEqual([]);
  });

  it('close() flushes pending hits', async () => {
    const local = await createTestRuntime({ driver });
    try {
      const p = await local.principal({ tenant: freshTenant(), agent: 'a' });
      const node = await local.facade.store(p, { content: 'flush at shutdown', cell_type: 'Fact', salience: 0.5 });
      await local.facade.recall(p, { query: 'flush at shutdown', k: 1 });
      await local.facade.close();
      const { rows } = await local.db.query<{ hits: number }>('SELECT hits FROM cells WHERE node_id = $1', [node.node_id]);
      expect(rows[0]?.hits).toBe(1);
    } finally {
      await local.close();
    }
  });
});
