/**
 * The facade's views for people's tools (the web console): an admin key sees its tenant within its
 * project scope, any other key only itself, its beacons and its inbox; tenancy is absolute.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../support/test-runtime.js';
import { expectCode, expectInvalidField, freshTenant } from '../support/facade-expectations.js';

describe('console views of the facade', () => {
  let rt: TestRuntime;

  beforeAll(async () => {
    rt = await createTestRuntime();
  });
  afterAll(async () => rt.close());

  /** A tenant where bob watches deployments in project a and carol in project b; alice stores in both. */
  const team = async () => {
    const tenant = freshTenant();
    const [admin, narrowAdmin, alice, bob, carol, stranger] = await Promise.all([
      rt.principal({ tenant, agent: 'admin', roles: ['admin'] }),
      rt.principal({ tenant, agent: 'narrow-admin', roles: ['admin'], projects: ['a'] }),
      rt.principal({ tenant, agent: 'alice', roles: ['writer'] }),
      rt.principal({ tenant, agent: 'bob', roles: ['reader'] }),
      rt.principal({ tenant, agent: 'carol', roles: ['reader'] }),
      rt.principal({ tenant: freshTenant(), agent: 'stranger', roles: ['admin'] }),
    ]);
    await rt.facade.placeBeacon(bob, { text: 'deployment rollout plan', project: 'a', threshold: 0.2, include_own: false });
    await rt.facade.placeBeacon(carol, { text: 'deployment rollout plan', project: 'b', threshold: 0.2, include_own: false });
    await rt.facade.openSession(alice, { project: 'a' });
    await rt.facade.store(alice, { content: 'The deployment rollout plan starts with canaries', cell_type: 'Decision', salience: 0.9 });
    await rt.facade.openSession(alice, { project: 'b' });
    await rt.facade.store(alice, { content: 'The deployment rollout plan ends with a full switch', cell_type: 'Decision', salience: 0.9 });
    return { admin, narrowAdmin, alice, bob, carol, stranger };
  };

  it('says who a key is', async () => {
    const tenant = freshTenant();
    const reader = await rt.principal({ tenant, agent: 'reader-1', roles: ['reader'], projects: ['x', 'y'], default_project: 'x', trust: 0.7 });
    expect(await rt.facade.whoAmI(reader)).toEqual({
      tenant,
      agent: 'reader-1',
      key_id: reader.keyId,
      roles: ['reader'],
      projects: ['x', 'y'],
      default_project: 'x',
      trust: 0.7,
    });
  });

  it('lists the tenant’s agents and beacons to an admin, within its projects, and only itself to anyone else', async () => {
    const { admin, narrowAdmin, bob, stranger } = await team();
    const all = await rt.facade.gossipAgents(admin);
    expect(all.map((agent) => [agent.agent, agent.beacons.map((beacon) => beacon.project)])).toEqual([
      ['admin', []],
      ['alice', []],
      ['bob', ['a']],
      ['carol', ['b']],
      ['narrow-admin', []],
    ]);
    const narrow = await rt.facade.gossipAgents(narrowAdmin);
    expect(narrow.find((agent) => agent.agent === 'carol')?.beacons).toEqual([]);
    expect((await rt.facade.gossipAgents(bob)).map((agent) => [agent.agent, agent.beacons.length])).toEqual([['bob', 1]]);
    expect((await rt.facade.gossipAgents(stranger)).map((agent) => agent.agent)).toEqual(['stranger']);
  });

  it('shows who told whom: the tenant to an admin (by recipient, within its projects), the own inbox to anyone else', async () => {
    const { admin, narrowAdmin, bob, carol, stranger } = await team();
    const everything = await rt.facade.recentGossip(admin, {});
    expect(everything.map((event) => [event.diff.source_agent, event.recipient_agent, event.diff.project])).toEqual([
      ['alice', 'carol', 'b'],
      ['alice', 'bob', 'a'],
    ]);
    expect((await rt.facade.recentGossip(admin, { recipient: 'bob' })).map((event) => event.recipient_agent)).toEqual(['bob']);
    expect((await rt.facade.recentGossip(narrowAdmin, {})).map((event) => event.diff.project)).toEqual(['a']);
    expect((await rt.facade.recentGossip(bob, {})).map((event) => event.recipient_agent)).toEqual(['bob']);
    expect((await rt.facade.recentGossip(carol, { recipient: 'carol' })).map((event) => event.recipient_agent)).toEqual(['carol']);
    await expectCode(rt.facade.recentGossip(bob, { recipient: 'carol' }), 'FORBIDDEN');
    expect(await rt.facade.recentGossip(stranger, {})).toEqual([]);
    expect(await rt.facade.recentGossip(stranger, { recipient: 'bob' })).toEqual([]);
    await expectInvalidField(rt.facade.recentGossip(admin, { limit: 0 }), 'limit');
    await expectInvalidField(rt.facade.recentGossip(admin, { recipient: 'no spaces' }), 'recipient');
  });

  it('lists the cells one agent stored', async () => {
    const { admin, alice } = await team();
    await rt.facade.store(admin, { content: 'An admin note about the rollout', cell_type: 'Fact', salience: 0.5 });
    const byAlice = await rt.facade.listCells(admin, { author: 'alice', limit: 50 });
    expect(byAlice.items.map((cell) => cell.source_agent)).toEqual(['alice', 'alice']);
    expect((await rt.facade.listCells(alice, { author: 'admin', limit: 50 })).items.map((cell) => cell.content)).toEqual(['An admin note about the rollout']);
    await expectInvalidField(rt.facade.listCells(admin, { author: 'not an agent', limit: 50 }), 'author');
  });

  it('recalls in a named project of the key scope (REST project), refusing one outside it', async () => {
    const { admin, narrowAdmin } = await team();
    const inB = await rt.facade.recall(admin, { query: 'deployment rollout plan', k: 5 }, { withNodes: true, project: 'b' });
    expect(inB.results.map((hit) => hit.node?.project)).toEqual(['b']);
    const inCurrent = await rt.facade.recall(admin, { query: 'deployment rollout plan', k: 5 }, { withNodes: true });
    expect(inCurrent.results).toEqual([]);
    await expectCode(rt.facade.recall(narrowAdmin, { query: 'deployment', k: 5 }, { project: 'b' }), 'FORBIDDEN');
    await expectInvalidField(rt.facade.recall(admin, { query: 'deployment', k: 5 }, { project: '' }), 'project');
  });

  it('reports quotas in use to an admin only', async () => {
    const { admin, bob } = await team();
    const quotas = await rt.facade.quotaUsage(admin);
    expect(quotas.find((quota) => quota.quota === 'cells_per_tenant')).toEqual({ quota: 'cells_per_tenant', scope: 'tenant', used: 2, limit: rt.facade.config.maxCellsPerTenant });
    expect(quotas.filter((quota) => quota.quota === 'beacons_per_agent').map((quota) => [quota.scope, quota.used])).toEqual([
      ['agent:bob', 1],
      ['agent:carol', 1],
    ]);
    expect(quotas.filter((quota) => quota.quota === 'open_sessions_per_agent').map((quota) => [quota.scope, quota.used])).toEqual([['agent:alice', 2]]);
    await expectCode(rt.facade.quotaUsage(bob), 'FORBIDDEN');
  });

  it('refuses a live gossip stream when no live feed is configured, after the same rules', async () => {
    const { admin, bob } = await team();
    await expectCode(rt.facade.watchGossip(bob, { recipient: 'carol' }, () => undefined), 'FORBIDDEN');
    await expectCode(rt.facade.watchGossip(admin, {}, () => undefined), 'UNAVAILABLE');
  });
});
