/**
 * The admin purge of a whole project (REST `DELETE /v1/admin/projects?project=…`): an admin key
 * erases the project's cells of every layer and version, scenes, sessions, the beacons watching
 * only it and the diffs about it in inboxes, and gets the counts; the project of the same name in
 * another tenant and the other projects of the tenant are untouched; writers, readers and admins
 * scoped to other projects cannot purge; no `deleted` diff is sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/core/principal.js';
import { createTestRuntime, TEST_DRIVERS, type TestRuntime } from '../support/test-runtime.js';
import { expectCode, expectInvalidField, freshTenant } from '../support/facade-expectations.js';

const EPOCH = '2000-01-01T00:00:00Z';

describe.each(TEST_DRIVERS)('purging a project on %s', (driver) => {
  let rt: TestRuntime;

  beforeAll(async () => {
    rt = await createTestRuntime({ driver });
  });
  afterAll(async () => rt.close());

  /** A tenant with project doomed (two scenes, a supersession, a watcher's beacon on it) and project kept. */
  const seeded = async (tenant: string): Promise<{ author: Principal; watcher: Principal; admin: Principal; kept: string }> => {
    const author = await rt.principal({ tenant, agent: 'author', default_project: 'doomed' });
    const watcher = await rt.principal({ tenant, agent: 'watcher', default_project: 'doomed' });
    const admin = await rt.principal({ tenant, agent: 'ops', roles: ['admin'] });
    await rt.facade.placeBeacon(watcher, { text: 'payment retries', threshold: 0.3, project: 'doomed', include_own: false });
    await rt.facade.placeBeacon(watcher, { text: 'payment retries', threshold: 0.3, include_own: false });
    await rt.facade.openSession(author, { project: 'doomed', title: 'first' });
    const old = await rt.facade.store(author, { content: 'payment retries happen three times', cell_type: 'Decision', salience: 0.5 });
    await rt.facade.store(author, { content: 'payment retries happen five times', cell_type: 'Decision', salience: 0.5, supersedes: old.node_id });
    await rt.facade.openSession(author, { project: 'doomed', title: 'second' });
    await rt.facade.store(author, { content: 'payment retries use exponential backoff', cell_type: 'Pattern', salience: 0.5 });
    await rt.facade.openSession(author, { project: 'kept' });
    const kept = await rt.facade.store(author, { content: 'payment retries are logged', cell_type: 'Fact', salience: 0.5 });
    return { author, watcher, admin, kept: kept.node_id };
  };
  const count = async (sql: string, params: readonly unknown[]): Promise<number> =>
    (await rt.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params)).rows[0]?.n ?? 0;

  it('erases every trace of the project in the tenant, counts it, and leaves the other project alone', async () => {
    const tenant = freshTenant();
    const { author, watcher, admin, kept } = await seeded(tenant);
    const diffsBefore = (await rt.facade.pullDiffs(watcher, { since: EPOCH, limit: 500 })).diffs;
    const doomedDiffs = diffsBefore.filter((d) => d.project === 'doomed').length;
    expect(doomedDiffs).toBeGreaterThan(0);

    const purged = await rt.facade.purgeProject(admin, { project: 'doomed' });
    expect(purged).toEqual({ project: 'doomed', cells: 3, scenes: 2, sessions: 2, beacons: 1, diffs: doomedDiffs, receipt: expect.objectContaining({ selector: { kind: 'project', project: 'doomed' } }) });
    expect(purged.receipt.counts).toMatchObject({ scenes: 2, sessions: 2, beacons: 1, diffs: doomedDiffs });
    expect(await count(`cells WHERE tenant_id = $1 AND project = 'doomed'`, [tenant])).toBe(0);
    expect(await count(`scenes WHERE tenant_id = $1 AND project = 'doomed'`, [tenant])).toBe(0);
    expect((await rt.facade.listCells(author, { limit: 50 })).items.map((c) => c.node_id)).toEqual([kept]);
    expect((await rt.facade.listBeacons(watcher, { limit: 50 })).items.map((b) => b.project)).toEqual([null]);
    // No deleted diff: the inbox holds only what the kept project sent.
    const diffsAfter = (await rt.facade.pullDiffs(watcher, { since: EPOCH, limit: 500 })).diffs;
    expect(diffsAfter.map((d) => [d.op, d.project])).toEqual(diffsBefore.filter((d) => d.project !== 'doomed').map((d) => [d.op, d.project]));
    // The author's sessions in the project are gone, its open session in the kept project is not.
    expect((await rt.facade.store(author, { content: 'payment retries are back', cell_type: 'Fact', salience: 0.5 })).project).toBe('kept');
    expect(await rt.facade.purgeProject(admin, { project: 'doomed' })).toEqual({ project: 'doomed', cells: 0, scenes: 0, sessions: 0, beacons: 0, diffs: 0, receipt: expect.objectContaining({ counts: {} }) });
  });

  it("never touches another tenant's project of the same name", async () => {
    const [mine, theirs] = [freshTenant(), freshTenant()];
    const { admin } = await seeded(mine);
    const other = await seeded(theirs);
    const theirCells = await count(`cells WHERE tenant_id = $1`, [theirs]);
    expect((await rt.facade.purgeProject(admin, { project: 'doomed' })).cells).toBe(3);
    expect(await count(`cells WHERE tenant_id = $1`, [theirs])).toBe(theirCells);
    expect((await rt.facade.listCells(other.author, { limit: 50, project: 'doomed' })).items).toHaveLength(2);
  });

  it('is for admin keys with the project in scope only; a bad project name is INVALID_ARGUMENT', async () => {
    const tenant = freshTenant();
    const { author, watcher } = await seeded(tenant);
    const scopedAdmin = await rt.principal({ tenant, agent: 'ops2', roles: ['admin'], projects: ['kept'], default_project: 'kept' });
    await expectCode(rt.facade.purgeProject(author, { project: 'doomed' }), 'FORBIDDEN');
    await expectCode(rt.facade.purgeProject(watcher, { project: 'doomed' }), 'FORBIDDEN');
    await expectCode(rt.facade.purgeProject(scopedAdmin, { project: 'doomed' }), 'FORBIDDEN');
    await expectInvalidField(rt.facade.purgeProject(scopedAdmin, { project: '../x' }), 'project');
    expect(await count(`cells WHERE tenant_id = $1 AND project = 'doomed'`, [tenant])).toBe(3);
  });
});
