/**
 * Bulk forgetting through the facade (REST `DELETE /v1/cells?scene_id=…|source_ref=…`): the readable
 * cells of a scene or of one source go, in batches that report `has_more`, each with its `deleted`
 * diff to the beacons it matches; another tenant's call and a key scoped to other projects forget
 * nothing; asking for both filters, neither, or a kind without a locator is INVALID_ARGUMENT.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/core/principal.js';
import { createTestRuntime, TEST_DRIVERS, type TestRuntime } from '../support/test-runtime.js';
import { expectInvalidField, freshTenant } from '../support/facade-expectations.js';

const EPOCH = '2000-01-01T00:00:00Z';

describe.each(TEST_DRIVERS)('forgetting cells in bulk on %s', (driver) => {
  let rt: TestRuntime;

  beforeAll(async () => {
    rt = await createTestRuntime({ driver });
  });
  afterAll(async () => rt.close());

  const remaining = async (p: Principal): Promise<string[]> => (await rt.facade.listCells(p, { limit: 200 })).items.map((c) => c.content).sort();

  it('forgets a scene in batches, sends a deleted diff per cell, leaves the rest', async () => {
    const tenant = freshTenant();
    const author = await rt.principal({ tenant, agent: 'author' });
    const watcher = await rt.principal({ tenant, agent: 'watcher' });
    await rt.facade.placeBeacon(watcher, { text: 'incident timeline notes', threshold: 0.3, include_own: false });
    const { scene_id: sceneId } = await rt.facade.openSession(author, { project: 'default', title: 'incident 7' });
    for (let i = 0; i < 3; i++) await rt.facade.store(author, { content: `incident timeline notes ${i}`, cell_type: 'Context', salience: 0.5 });
    await rt.facade.store(author, { content: 'kept elsewhere', cell_type: 'Fact', salience: 0.5, scene_id: (await rt.facade.openSession(author, { project: 'default' })).scene_id });

    expect(await rt.facade.forgetCells(author, { scene_id: sceneId, limit: 2 })).toEqual({ deleted: 2, has_more: true });
    expect(await rt.facade.forgetCells(author, { scene_id: sceneId, limit: 2 })).toEqual({ deleted: 1, has_more: false });
    expect(await rt.facade.forgetCells(author, { scene_id: sceneId, limit: 2 })).toEqual({ deleted: 0, has_more: false });
    expect(await remaining(author)).toEqual(['kept elsewhere']);
    const ops = (await rt.facade.pullDiffs(watcher, { since: EPOCH, limit: 500 })).diffs.map((d) => d.op);
    expect(ops.filter((op) => op === 'created')).toHaveLength(3);
    expect(ops.filter((op) => op === 'deleted')).toHaveLength(3);
  });

  it('forgets by source locator, narrowed by kind; other tenants and other scopes forget nothing', async () => {
    const tenant = freshTenant();
    const author = await rt.principal({ tenant, agent: 'author', default_project: 'p' });
    const stranger = await rt.principal({ tenant: freshTenant(), agent: 'author' });
    const narrow = await rt.principal({ tenant, agent: 'narrow', projects: ['q'], default_project: 'q' });
    const from = (kind: string, locator: string) => ({ source_ref: { kind, locator } });
    await rt.facade.store(author, { content: 'from the doc', cell_type: 'Fact', salience: 0.5, ...from('file', 'docs/a.md') });
    await rt.facade.store(author, { content: 'from the doc again', cell_type: 'Fact', salience: 0.5, ...from('file', 'docs/a.md') });
    await rt.facade.store(author, { content: 'a url of the same name', cell_type: 'Fact', salience: 0.5, ...from('url', 'docs/a.md') });
    await rt.facade.store(author, { content: 'unrelated', cell_type: 'Fact', salience: 0.5 });

    expect(await rt.facade.forgetCells(stranger, { source_ref: 'docs/a.md', limit: 500 })).toEqual({ deleted: 0, has_more: false });
    expect(await rt.facade.forgetCells(narrow, { source_ref: 'docs/a.md', limit: 500 })).toEqual({ deleted: 0, has_more: false });
    expect(await rt.facade.forgetCells(author, { source_ref: 'docs/a.md', source_ref_kind: 'file', limit: 500 })).toEqual({ deleted: 2, has_more: false });
    expect(await remaining(author)).toEqual(['a url of the same name', 'unrelated']);
    expect(await rt.facade.forgetCells(author, { source_ref: 'docs/a.md', limit: 500 })).toEqual({ deleted: 1, has_more: false });
    expect(await remaining(author)).toEqual(['unrelated']);
  });

  it('refuses both filters, neither, or a kind alone, naming the field, and forgets nothing', async () => {
    const author = await rt.principal({ tenant: freshTenant(), agent: 'author' });
    await rt.facade.store(author, { content: 'still here', cell_type: 'Fact', salience: 0.5, source_ref: { kind: 'file', locator: 'x' } });
    await expectInvalidField(rt.facade.forgetCells(author, { limit: 500 }), 'scene_id');
    await expectInvalidField(rt.facade.forgetCells(author, { scene_id: '00000000-0000-4000-8000-000000000000', source_ref: 'x', limit: 500 }), 'source_ref');
    await expectInvalidField(rt.facade.forgetCells(author, { scene_id: '00000000-0000-4000-8000-000000000000', source_ref_kind: 'file', limit: 500 }), 'source_ref_kind');
    await expectInvalidField(rt.facade.forgetCells(author, { scene_id: 'nope', limit: 500 }), 'scene_id');
    expect(await remaining(author)).toEqual(['still here']);
  });
});
