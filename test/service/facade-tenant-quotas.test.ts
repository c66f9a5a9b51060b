/**
 * Tenant and agent quotas, and the bounded reads (docs/security.md): cells per tenant, open sessions per
 * agent, the beacon matcher's candidates per change, and the member cells get_scene lists and a
 * consolidation reads. A refused write is a CONFLICT naming the quota, and leaves nothing behind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/core/principal.js';
import type { WrittenDiff } from '../../src/mesh/diff-writer.js';
import { createTestRuntime, TEST_DRIVERS, type TestRuntime } from '../support/test-runtime.js';
import { expectCode, freshTenant } from '../support/facade-expectations.js';

const EPOCH = '2000-01-01T00:00:00Z';
const CELLS = 5;
const SESSIONS = 2;
const CANDIDATES = 3;
const SCENE_CELLS = 2;

describe.each(TEST_DRIVERS)('tenant quotas and bounded reads on %s', (driver) => {
  let rt: TestRuntime;
  const signalled: WrittenDiff[] = [];

  beforeAll(async () => {
    rt = await createTestRuntime({
      driver,
      facade: { maxCellsPerTenant: CELLS, maxOpenSessionsPerAgent: SESSIONS, maxBeaconCandidates: CANDIDATES, maxSceneCells: SCENE_CELLS },
      outbox: { diffsCommitted: (diffs) => signalled.push(...diffs) },
    });
  });
  afterAll(async () => rt.close());

  const note = (i: number): { content: string; cell_type: 'Fact'; salience: number } => ({ content: `disk usage report ${i}`, cell_type: 'Fact', salience: 0.5 });
  const cellCount = async (p: Principal): Promise<number> => (await rt.facade.listCells(p, { limit: 200, include_superseded: true })).items.length;

  it('a tenant holds at most maxCellsPerTenant cells: one more store is a CONFLICT naming the quota, and writes nothing', async () => {
    const tenant = freshTenant();
    const author = await rt.principal({ tenant, agent: 'author' });
    const watcher = await rt.principal({ tenant, agent: 'watcher' });
    await rt.facade.placeBeacon(watcher, { text: 'disk usage report', include_own: false, threshold: 0.2 });
    const { scene_id: scene } = await rt.facade.openSession(author, { project: 'default' });
    const stored = [];
    for (let i = 0; i < CELLS; i++) stored.push(await rt.facade.store(author, note(i)));
    const diffsBefore = (await rt.facade.pullDiffs(watcher, { since: EPOCH, limit: 200 })).diffs.length;
    const signalledBefore = signalled.length;

    const refused = await expectCode(rt.facade.store(author, { ...note(99), idempotency_key: 'over-quota' }), 'CONFLICT');
    expect(refused.details).toMatchObject({ quota: 'cells_per_tenant', limit: CELLS });
    // Nothing of the refused store remains: no cell, no diff, no idempotency key taken.
    expect(await cellCount(author)).toBe(CELLS);
    expect((await rt.facade.pullDiffs(watcher, { since: EPOCH, limit: 200 })).diffs).toHaveLength(diffsBefore);
    expect(signalled).toHaveLength(signalledBefore);
    // The quota is the tenant's: every agent in it is refused, and so is a consolidation (it writes a cell).
    await expectCode(rt.facade.store(watcher, note(100)), 'CONFLICT');
    const consolidation = await expectCode(rt.facade.consolidateScene(author, scene), 'CONFLICT');
    expect(consolidation.details).toMatchObject({ quota: 'cells_per_tenant' });

    // Another tenant is not affected.
    const other = await rt.principal({ tenant: freshTenant(), agent: 'author' });
    await rt.facade.store(other, note(0));

    // Deleting a cell makes room for one, and the retried key stores.
    await rt.facade.deleteCell(author, stored[0]?.node_id ?? '');
    const retried = await rt.facade.store(author, { ...note(99), idempotency_key: 'over-quota' });
    expect(retried.content).toBe(note(99).content);
    await expectCode(rt.facade.store(author, note(101)), 'CONFLICT');
  });

  it('an agent holds at most maxOpenSessionsPerAgent open sessions: one more is a CONFLICT; closing one makes room; other agents keep theirs', async () => {
    const tenant = freshTenant();
    const agent = await rt.principal({ tenant, agent: 'a' });
    const other = await rt.principal({ tenant, agent: 'b' });
    const opened = [];
    for (let i = 0; i < SESSIONS; i++) opened.push(await rt.facade.openSession(agent, { project: `p${i}` }));
    const scenesBefore = (await rt.facade.listScenes(agent, { limit: 200 })).items.length;
    const refused = await expectCode(rt.facade.openSession(agent, { project: 'one-too-many' }), 'CONFLICT');
    expect(refused.details).toMatchObject({ quota: 'open_sessions_per_agent', limit: SESSIONS });
    // The refused session left no scene behind.
    expect((await rt.facade.listScenes(agent, { limit: 200 })).items).toHaveLength(scenesBefore);
    await rt.facade.openSession(other, { project: 'b' });
    await rt.facade.closeSession(agent, { session_id: opened[0]?.session_id ?? '' });
    await rt.facade.openSession(agent, { project: 'again' });
    await expectCode(rt.facade.openSession(agent, { project: 'full-again' }), 'CONFLICT');
  });

  it('a change is matched against its maxBeaconCandidates nearest beacons at most: fan-out is bounded however many agents watch', async () => {
    const tenant = freshTenant();
    const watchers = [];
    for (let i = 0; i < CANDIDATES * 3; i++) {
      const watcher = await rt.principal({ tenant, agent: `watcher-${i}` });
      await rt.facade.placeBeacon(watcher, { text: 'kafka consumer lag', include_own: false, threshold: 0.2 });
      watchers.push(watcher);
    }
    const author = await rt.principal({ tenant, agent: 'author' });
    const before = signalled.length;
    await rt.facade.store(author, { content: 'kafka consumer lag', cell_type: 'Risk', salience: 1 });
    expect(signalled.length - before).toBe(CANDIDATES);
  });

  it('get_scene lists, and a consolidation reads, the scene newest maxSceneCells cells, in order', async () => {
    const p = await rt.principal({ tenant: freshTenant(), agent: 'a' });
    const session = await rt.facade.openSession(p, { project: 'scene', title: 'bounded' });
    const ids = [];
    for (let i = 0; i < SCENE_CELLS + 2; i++) {
      ids.push((await rt.facade.store(p, { content: `step ${i} of the migration ran`, cell_type: 'Fact', salience: 0.5 })).node_id);
      rt.clock.advance(1_000);
    }
    const newest = ids.slice(-SCENE_CELLS);
    const scene = await rt.facade.getScene(p, session.scene_id, { withNodes: true });
    expect(scene.cell_ids).toEqual(newest);
    expect(scene.cells?.map((c) => c.node_id)).toEqual(newest);
    const l1 = await rt.facade.consolidateScene(p, session.scene_id);
    expect(l1.metadata).toMatchObject({ consolidated_cells: newest });
  });
});
