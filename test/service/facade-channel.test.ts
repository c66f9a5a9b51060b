/**
 * What the facade keeps for the Claude Code channel: the backlog a new session announces (the
 * inbox above the drain cursor and the channel mark, readable diffs only, summed by type and
 * author), the mark (raised, never lowered), and an author's trust (its highest unrevoked key).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/core/principal.js';
import { createTestRuntime, TEST_DRIVERS, type TestRuntime } from '../support/test-runtime.js';
import { freshTenant } from '../support/facade-expectations.js';

describe.each(TEST_DRIVERS)('the channel state on %s', (driver) => {
  let rt: TestRuntime;
  let tenant: string;
  let reader: Principal;
  let narrow: Principal;
  let alice: Principal;
  let bob: Principal;

  beforeAll(async () => {
    rt = await createTestRuntime({ driver });
    tenant = freshTenant('channel');
    reader = await rt.principal({ tenant, agent: 'reader', projects: ['alpha', 'beta'], default_project: 'alpha' });
    narrow = await rt.principal({ tenant, agent: 'reader', projects: ['beta'], default_project: 'beta' });
    alice = await rt.principal({ tenant, agent: 'alice', trust: 0.3 });
    bob = await rt.principal({ tenant, agent: 'bob', trust: 0.9 });
    await rt.facade.placeBeacon(reader, { text: 'ledger idempotency', threshold: 0.2, include_own: false });
    const store = async (who: Principal, project: string, content: string, cellType: 'Fact' | 'Risk'): Promise<void> => {
      await rt.facade.openSession(who, { project });
      await rt.facade.store(who, { content, cell_type: cellType, salience: 0.9 });
    };
    await store(alice, 'alpha', 'ledger idempotency keys are required', 'Fact');
    await store(alice, 'alpha', 'ledger idempotency key reuse is a risk', 'Risk');
    await store(bob, 'beta', 'ledger idempotency lives in the gateway', 'Fact');
  });
  afterAll(async () => rt.close());

  it('sums what the inbox holds undelivered and unannounced, by type and author, readable diffs only', async () => {
    const backlog = await rt.facade.channelBacklog(reader);
    expect(backlog.head_seq).toBe(3);
    expect([...backlog.groups].sort((a, b) => `${a.source_agent}${a.cell_type}`.localeCompare(`${b.source_agent}${b.cell_type}`))).toEqual([
      { cell_type: 'Fact', source_agent: 'alice', count: 1 },
      { cell_type: 'Risk', source_agent: 'alice', count: 1 },
      { cell_type: 'Fact', source_agent: 'bob', count: 1 },
    ]);
    expect((await rt.facade.channelBacklog(narrow)).groups).toEqual([{ cell_type: 'Fact', source_agent: 'bob', count: 1 }]);
    // An agent whose inbox never received anything has no backlog.
    expect(await rt.facade.channelBacklog(alice)).toEqual({ head_seq: 0, groups: [] });
  });

  it('starts above the mark, which only goes up', async () => {
    await rt.facade.markChannelSettled(reader, 2);
    expect((await rt.facade.channelBacklog(reader)).groups).toEqual([{ cell_type: 'Fact', source_agent: 'bob', count: 1 }]);
    await rt.facade.markChannelSettled(reader, 1);
    expect((await rt.facade.channelBacklog(reader)).groups).toHaveLength(1);
    await rt.facade.markChannelSettled(reader, 3);
    expect(await rt.facade.channelBacklog(reader)).toEqual({ head_seq: 3, groups: [] });
  });

  it('starts above the drain cursor as well', async () => {
    const other = await rt.principal({ tenant, agent: 'drainer' });
    await rt.facade.placeBeacon(other, { text: 'ledger idempotency', threshold: 0.2, include_own: false });
    await rt.facade.store(bob, { content: 'ledger idempotency again', cell_type: 'Fact', salience: 0.9 });
    expect((await rt.facade.channelBacklog(other)).groups).toEqual([{ cell_type: 'Fact', source_agent: 'bob', count: 1 }]);
    await rt.facade.drainInbox(other, { page_size: 10 });
    expect((await rt.facade.channelBacklog(other)).groups).toEqual([]);
  });

  it("reads an author's trust: its highest unrevoked key, nothing for a stranger or another tenant's agent", async () => {
    expect(await rt.facade.authorTrust(reader, 'alice')).toBeCloseTo(0.3);
    expect(await rt.facade.authorTrust(reader, 'bob')).toBeCloseTo(0.9);
    expect(await rt.facade.authorTrust(reader, 'nobody')).toBeUndefined();
    expect(await rt.facade.authorTrust(reader, 'not a name')).toBeUndefined();
    const elsewhere = await rt.principal({ tenant: freshTenant('other'), agent: 'eve' });
    expect(await rt.facade.authorTrust(elsewhere, 'bob')).toBeUndefined();
    const revoked = await rt.mintKey({ tenant, agent: 'gone', trust: 1 });
    await rt.keyAdmin.revokeKey(revoked.info.key_id, tenant);
    expect(await rt.facade.authorTrust(reader, 'gone')).toBeUndefined();
  });
});
