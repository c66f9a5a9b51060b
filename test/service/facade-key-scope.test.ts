/**
 * Scope is the key's, not the agent's: one agent holding a wide key (alpha, beta) and a narrow
 * one (beta) must see through the narrow key nothing of alpha — no idempotent replay of an alpha
 * cell, no alpha diff in pull_diffs, drain_inbox or the inbox peek, no alpha beacon to list or
 * delete, no alpha session to close.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/core/principal.js';
import { createTestRuntime, TEST_DRIVERS, type TestRuntime } from '../support/test-runtime.js';
import { expectCode, freshTenant } from '../support/facade-expectations.js';

describe.each(TEST_DRIVERS)('key scope within one agent on %s', (driver) => {
  let rt: TestRuntime;
  let wide: Principal;
  let narrow: Principal;
  let alice: Principal;

  beforeAll(async () => {
    rt = await createTestRuntime({ driver });
    const tenant = freshTenant('scope');
    wide = await rt.principal({ tenant, agent: 'bob', projects: ['alpha', 'beta'], default_project: 'alpha' });
    narrow = await rt.principal({ tenant, agent: 'bob', projects: ['beta'], default_project: 'beta' });
    alice = await rt.principal({ tenant, agent: 'alice', projects: ['*'], default_project: 'alpha' });
    await rt.facade.placeBeacon(wide, { text: 'payments ledger', threshold: 0.2, include_own: false });
    await rt.facade.openSession(alice, { project: 'alpha' });
    await rt.facade.store(alice, { content: 'alpha payments ledger secret', cell_type: 'Decision', salience: 0.9 });
    await rt.facade.openSession(alice, { project: 'beta' });
    await rt.facade.store(alice, { content: 'beta payments ledger note', cell_type: 'Decision', salience: 0.9 });
  });
  afterAll(async () => rt.close());

  it('an idempotent replay from a key that cannot read the original is a CONFLICT without the cell', async () => {
    const original = await rt.facade.store(wide, { content: 'alpha-only replay content', cell_type: 'Fact', salience: 0.5, idempotency_key: 'once' });
    expect(original.project).toBe('alpha');
    const refused = await expectCode(rt.facade.store(narrow, { content: 'anything', cell_type: 'Fact', salience: 0.5, idempotency_key: 'once' }), 'CONFLICT');
    expect(JSON.stringify({ message: refused.message, details: refused.details })).not.toMatch(/alpha-only|node_id|[0-9a-f]{8}-[0-9a-f]{4}/);
    expect((await rt.facade.store(wide, { content: 'ignored', cell_type: 'Fact', salience: 0.5, idempotency_key: 'once' })).node_id).toBe(original.node_id);
  });

  it('pull_diffs through the narrow key shows only its projects, and its cursor still moves past hidden rows', async () => {
    const all = await rt.facade.pullDiffs(wide, { since: '2000-01-01T00:00:00Z', limit: 100 });
    expect(new Set(all.diffs.map((d) => d.project))).toEqual(new Set(['alpha', 'beta']));
    const mine = await rt.facade.pullDiffs(narrow, { since: '2000-01-01T00:00:00Z', limit: 100 });
    expect(mine.diffs.length).toBeGreaterThan(0);
    expect(mine.diffs.every((d) => d.project === 'beta')).toBe(true);
    const firstAlpha = all.diffs.findIndex((d) => d.project === 'alpha');
    const hiddenPage = await rt.facade.pullDiffs(narrow, { since: '2000-01-01T00:00:00Z', limit: firstAlpha + 1 });
    expect(hiddenPage.next_since).toBe(all.diffs[firstAlpha]?.created_at);
  });

  it('the inbox peek and drain through the narrow key show only its projects', async () => {
    const peek = await rt.facade.peekInbox(narrow, { limit: 100 });
    expect(peek.diffs.length).toBeGreaterThan(0);
    expect(peek.diffs.every((d) => d.project === 'beta')).toBe(true);
    expect((await rt.facade.peekInbox(wide, { limit: 100 })).diffs.some((d) => d.project === 'alpha')).toBe(true);
    const drained = await rt.facade.drainInbox(narrow, { page_size: 100 });
    expect(drained.diffs.length).toBeGreaterThan(0);
    expect(drained.diffs.every((d) => d.project === 'beta')).toBe(true);
  });

  it('beacons outside the narrow key scope are neither listed nor deletable through it', async () => {
    const alphaBeacon = await rt.facade.placeBeacon(wide, { text: 'alpha watch', project: 'alpha', threshold: 0.3, include_own: false });
    const betaBeacon = await rt.facade.placeBeacon(narrow, { text: 'beta watch', project: 'beta', threshold: 0.3, include_own: false });
    const listed = (await rt.facade.listBeacons(narrow, { limit: 200 })).items.map((b) => b.beacon_id);
    expect(listed).toEqual([betaBeacon.beacon_id]);
    expect((await rt.facade.listBeacons(wide, { limit: 200 })).items).toHaveLength(3);
    await expectCode(rt.facade.deleteBeacon(narrow, alphaBeacon.beacon_id), 'NOT_FOUND');
    expect((await rt.facade.listBeacons(wide, { limit: 200 })).items.map((b) => b.beacon_id)).toContain(alphaBeacon.beacon_id);
    await rt.facade.deleteBeacon(narrow, betaBeacon.beacon_id);
  });

  it('a session in a project outside the narrow key scope cannot be closed through it, and stays open', async () => {
    const opened = await rt.facade.openSession(wide, { project: 'alpha', title: 'wide work' });
    await expectCode(rt.facade.closeSession(narrow, { session_id: opened.session_id }), 'NOT_FOUND');
    const stored = await rt.facade.store(wide, { content: 'still in the open alpha session', cell_type: 'Fact', salience: 0.5 });
    expect(stored.session_id).toBe(opened.session_id);
    expect((await rt.facade.closeSession(wide, { session_id: opened.session_id })).session_id).toBe(opened.session_id);
  });
});
