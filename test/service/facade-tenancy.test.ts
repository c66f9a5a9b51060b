import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/core/principal.js';
import { createTestRuntime, TEST_DRIVERS, type TestRuntime } from '../support/test-runtime.js';
import { expectCode, freshTenant } from '../support/facade-expectations.js';

/** Everything tenant A owns must read as NOT_FOUND (or be absent from listings) for tenant B. */
describe.each(TEST_DRIVERS)('tenant isolation on %s', (driver) => {
  let rt: TestRuntime;
  let a: Principal;
  let aAdmin: Principal;
  let b: Principal;
  let bAdmin: Principal;
  let owned: { nodeId: string; sceneId: string; sessionId: string; beaconId: string; keyId: string };

  beforeAll(async () => {
    rt = await createTestRuntime({ driver });
    const ta = freshTenant('a');
    const tb = freshTenant('b');
    a = await rt.principal({ tenant: ta, agent: 'shared-name' });
    aAdmin = await rt.principal({ tenant: ta, agent: 'admin', roles: ['admin'] });
    // Same agent name in the other tenant: names are only unique within a tenant.
    b = await rt.principal({ tenant: tb, agent: 'shared-name' });
    bAdmin = await rt.principal({ tenant: tb, agent: 'admin', roles: ['admin'] });
    const session = await rt.facade.openSession(a, { project: 'alpha', title: 'A work' });
    const node = await rt.facade.store(a, { content: 'tenant A secret about payments', cell_type: 'Decision', salience: 0.9 });
    const beacon = await rt.facade.placeBeacon(a, { text: 'payments', include_own: true, threshold: 0.2 });
    owned = { nodeId: node.node_id, sceneId: session.scene_id, sessionId: session.session_id, beaconId: beacon.beacon_id, keyId: a.keyId };
  });
  afterAll(async () => rt.close());

  it('get, delete and scene reads of a foreign id are NOT_FOUND', async () => {
    await expectCode(rt.facade.getCell(b, owned.nodeId), 'NOT_FOUND');
    await expectCode(rt.facade.deleteCell(b, owned.nodeId), 'NOT_FOUND');
    await expectCode(rt.facade.getScene(b, owned.sceneId), 'NOT_FOUND');
    await expectCode(rt.facade.consolidateScene(b, owned.sceneId), 'NOT_FOUND');
    expect((await rt.facade.getCell(a, owned.nodeId)).node_id).toBe(owned.nodeId);
  });

  it('foreign sessions, beacons and keys are NOT_FOUND', async () => {
    await expectCode(rt.facade.closeSession(b, { session_id: owned.sessionId }), 'NOT_FOUND');
    await expectCode(rt.facade.deleteBeacon(b, owned.beaconId), 'NOT_FOUND');
    await expectCode(rt.facade.revokeKey(bAdmin, owned.keyId), 'NOT_FOUND');
    expect((await rt.facade.authenticate((await rt.mintKey({ tenant: a.tenantId, agent: 'x' })).key)).tenantId).toBe(a.tenantId);
  });

  it('a foreign scene_id in store, recall or place_beacon is NOT_FOUND or empty, never a leak', async () => {
    await expectCode(rt.facade.store(b, { content: 'x', cell_type: 'Fact', salience: 0.5, scene_id: owned.sceneId }), 'NOT_FOUND');
    await expectCode(rt.facade.placeBeacon(b, { text: 'x', include_own: false, scene_id: owned.sceneId }), 'NOT_FOUND');
    expect((await rt.facade.recall(b, { query: 'payments', k: 10, scene_id: owned.sceneId })).results).toEqual([]);
  });

  it('listings and searches never show the other tenant', async () => {
    expect((await rt.facade.listCells(b, { limit: 200 })).items).toEqual([]);
    expect((await rt.facade.listScenes(b, { limit: 200 })).items).toEqual([]);
    expect((await rt.facade.listBeacons(b, { limit: 200 })).items).toEqual([]);
    expect((await rt.facade.listKeys(bAdmin)).map((k) => k.tenant)).toEqual([b.tenantId, b.tenantId]);
    expect((await rt.facade.recall(b, { query: 'tenant A secret about payments', k: 100 })).results).toEqual([]);
    for (const layer of ['L0', 'L1', 'L2'] as const) {
      expect((await rt.facade.query(b, { query: 'payments', layer, k: 100 })).results).toEqual([]);
    }
    expect((await rt.facade.pullDiffs(b, { since: '2000-01-01T00:00:00Z', limit: 500 })).diffs).toEqual([]);
    expect((await rt.facade.drainInbox(b, { page_size: 500 })).diffs).toEqual([]);
  });

  it('a store in tenant B never reaches tenant A beacons (and vice versa)', async () => {
    await rt.facade.placeBeacon(b, { text: 'payments', include_own: true, threshold: 0.2 });
    const bNode = await rt.facade.store(b, { content: 'tenant B note about payments', cell_type: 'Decision', salience: 1 });
    const aNode = await rt.facade.store(a, { content: 'tenant A note about payments', cell_type: 'Decision', salience: 1 });
    const aInbox = await rt.facade.pullDiffs(a, { since: '2000-01-01T00:00:00Z', limit: 500 });
    expect(aInbox.diffs.map((d) => d.node_id)).toEqual([aNode.node_id]);
    const bInbox = await rt.facade.pullDiffs(b, { since: '2000-01-01T00:00:00Z', limit: 500 });
    expect(bInbox.diffs.map((d) => d.node_id)).toEqual([bNode.node_id]);
  });

  it('an admin mints keys only in its own tenant', async () => {
    await expectCode(rt.facade.createKey(aAdmin, { tenant: b.tenantId, agent: 'intruder', roles: ['admin'], projects: ['*'], trust: 0.5 }), 'FORBIDDEN');
    const created = await rt.facade.createKey(aAdmin, { tenant: a.tenantId, agent: 'new', roles: ['reader'], projects: ['alpha'], trust: 0.25 });
    expect(created).toMatchObject({ tenant: a.tenantId, agent: 'new', roles: ['reader'], projects: ['alpha'], default_project: 'alpha', trust: 0.25 });
  });
});
