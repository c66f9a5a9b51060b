/**
 * Supersession across layers and scenes (docs/memory-model.md): the L2 copy of a superseded cell is
 * superseded with it; a superseded cell is never promoted, however often an include_superseded
 * recall hits it; consolidation summarises current cells only; and a scene read shows its current
 * cells unless asked for every version or an instant (as_of). The reinforced copy keeps its origin's
 * corroboration. Runs on PGlite and on PostgreSQL over the wire.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/core/principal.js';
import { createTestRuntime, TEST_DRIVERS, type TestRuntime } from '../support/test-runtime.js';
import { freshTenant } from '../support/facade-expectations.js';

const OLD = 'All services expose OpenTelemetry traces over gRPC.';
const NEW = 'Tracing moved to a vendor agent; services no longer export spans themselves.';

describe.each(TEST_DRIVERS)('supersession across layers and scenes on %s', (driver) => {
  let rt: TestRuntime;

  beforeAll(async () => {
    rt = await createTestRuntime({ driver });
  });
  afterAll(async () => rt.close());

  const author = async (): Promise<Principal> => rt.principal({ tenant: freshTenant(), agent: 'a' });
  /** Two recalls that hit the cell, each flushed: enough for a salient Decision to be promoted. */
  const hitTwice = async (p: Principal, options: { include_superseded?: boolean } = {}): Promise<void> => {
    for (let i = 0; i < 2; i++) {
      await rt.facade.recall(p, { query: OLD, k: 5 }, { validity: options });
      await rt.facade.flushHits();
    }
  };
  const l2Of = async (p: Principal, include_superseded: boolean) => (await rt.facade.listCells(p, { limit: 50, layer: 'L2', include_superseded })).items;

  it('closes the L2 copy of a superseded cell with it', async () => {
    const p = await author();
    const old = await rt.facade.store(p, { content: OLD, cell_type: 'Decision', salience: 0.9 });
    await hitTwice(p);
    const [copy] = await l2Of(p, false);
    expect(copy).toMatchObject({ content: OLD, valid_until: null, corroborations: 0, stated_by: ['a'] });

    const next = await rt.facade.store(p, { content: NEW, cell_type: 'Decision', salience: 0.9, supersedes: old.node_id });
    expect(await l2Of(p, false)).toEqual([]);
    expect(await rt.facade.getCell(p, copy?.node_id ?? '')).toMatchObject({ superseded_by: next.node_id, valid_until: next.valid_from });
    expect((await rt.facade.query(p, { query: OLD, layer: 'L2', k: 5 })).results).toEqual([]);
  });

  it('never promotes a superseded cell, however often it is recalled', async () => {
    const p = await author();
    const old = await rt.facade.store(p, { content: OLD, cell_type: 'Decision', salience: 0.9 });
    await rt.facade.store(p, { content: NEW, cell_type: 'Decision', salience: 0.9, supersedes: old.node_id });
    await hitTwice(p, { include_superseded: true });
    expect((await rt.facade.getCell(p, old.node_id)).hits).toBeGreaterThanOrEqual(2);
    // The current version, hit by the same recalls, may be promoted; the superseded one is not.
    expect((await l2Of(p, true)).map((c) => c.content)).not.toContain(OLD);
    expect((await rt.db.query('SELECT 1 FROM cells WHERE origin_node_id = $1', [old.node_id])).rowCount).toBe(0);
  });

  it('consolidates current cells only, and a scene read shows current cells unless asked for others', async () => {
    const p = await author();
    const { scene_id: sceneId } = await rt.facade.openSession(p, { project: 'default', title: 'tracing' });
    const old = await rt.facade.store(p, { content: OLD, cell_type: 'Decision', salience: 0.9 });
    const kept = await rt.facade.store(p, { content: 'Trace sampling stays at ten percent.', cell_type: 'Fact', salience: 0.5 });
    const next = await rt.facade.store(p, { content: NEW, cell_type: 'Decision', salience: 0.9, supersedes: old.node_id });

    const summary = await rt.facade.consolidateScene(p, sceneId);
    expect(summary.metadata.consolidated_cells).toEqual([kept.node_id, next.node_id]);
    expect(summary.content).not.toContain('over gRPC');

    const current = await rt.facade.getScene(p, sceneId);
    expect(current.cell_ids).toEqual([kept.node_id, next.node_id, summary.node_id]);
    expect((await rt.facade.getScene(p, sceneId, { validity: { include_superseded: true } })).cell_ids).toEqual([old.node_id, kept.node_id, next.node_id, summary.node_id]);
    expect((await rt.facade.getScene(p, sceneId, { withNodes: true, validity: { as_of: kept.valid_from } })).cells?.map((c) => c.node_id)).toEqual([
      old.node_id,
      kept.node_id,
    ]);
  });
});
