import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, TEST_DRIVERS, type TestRuntime } from '../support/test-runtime.js';
import { expectCode, expectInvalidField, freshTenant, MISSING_ID } from '../support/facade-expectations.js';

describe.each(TEST_DRIVERS)('sessions, scenes and consolidation on %s', (driver) => {
  let rt: TestRuntime;

  beforeAll(async () => {
    rt = await createTestRuntime({ driver });
  });
  afterAll(async () => rt.close());

  it('an open session sets the current project and the default scene; closing it falls back to the key default', async () => {
    const p = await rt.principal({ tenant: freshTenant(), agent: 'a', projects: ['home', 'work'], default_project: 'home' });
    const session = await rt.facade.openSession(p, { project: 'work', title: 'sprint 12' });
    const inSession = await rt.facade.store(p, { content: 'sprint goal: ship search', cell_type: 'Task', salience: 0.5 });
    expect(inSession).toMatchObject({ project: 'work', scene_id: session.scene_id, session_id: session.session_id });
    const closed = await rt.facade.closeSession(p, { session_id: session.session_id });
    expect(Date.parse(closed.closed_at)).toBeGreaterThanOrEqual(Date.parse(session.opened_at));
    expect(await rt.facade.closeSession(p, { session_id: session.session_id })).toEqual(closed);
    const after = await rt.facade.store(p, { content: 'back home', cell_type: 'Fact', salience: 0.5 });
    expect(after).toMatchObject({ project: 'home', scene_id: null, session_id: null });
  });

  it('the most recently opened open session wins; closing it reveals the previous one', async () => {
    const p = await rt.principal({ tenant: freshTenant(), agent: 'a' });
    const first = await rt.facade.openSession(p, { project: 'one' });
    const second = await rt.facade.openSession(p, { project: 'two' });
    expect((await rt.facade.store(p, { content: 'x', cell_type: 'Fact', salience: 0.5 })).project).toBe('two');
    await rt.facade.closeSession(p, { session_id: second.session_id });
    const stored = await rt.facade.store(p, { content: 'y', cell_type: 'Fact', salience: 0.5 });
    expect(stored).toMatchObject({ project: 'one', scene_id: first.scene_id });
  });

  it('sessions are per agent: another agent of the tenant cannot close mine, and mine do not move its project', async () => {
    const t = freshTenant();
    const a = await rt.principal({ tenant: t, agent: 'a' });
    const b = await rt.principal({ tenant: t, agent: 'b' });
    const session = await rt.facade.openSession(a, { project: 'a-proj' });
    await expectCode(rt.facade.closeSession(b, { session_id: session.session_id }), 'NOT_FOUND');
    await expectCode(rt.facade.closeSession(a, { session_id: MISSING_ID }), 'NOT_FOUND');
    expect((await rt.facade.store(b, { content: 'x', cell_type: 'Fact', salience: 0.5 })).project).toBe('default');
  });

  it('refuses a project outside the key scope and bad session input', async () => {
    const p = await rt.principal({ tenant: freshTenant(), agent: 'a', projects: ['mine'] });
    await expectCode(rt.facade.openSession(p, { project: 'theirs' }), 'FORBIDDEN');
    await expectInvalidField(rt.facade.openSession(p, { project: '' }), 'project');
    await expectInvalidField(rt.facade.openSession(p, { project: 'mine', owner: 'x' } as never), 'owner');
    await expectInvalidField(rt.facade.closeSession(p, { session_id: 'abc' }), 'session_id');
  });

  it('an explicit scene_id must be a scene of the current project', async () => {
    const p = await rt.principal({ tenant: freshTenant(), agent: 'a' });
    const s = await rt.facade.openSession(p, { project: 'x' });
    await rt.facade.closeSession(p, { session_id: s.session_id });
    await expectInvalidField(rt.facade.store(p, { content: 'x', cell_type: 'Fact', salience: 0.5, scene_id: s.scene_id }), 'scene_id');
    await expectCode(rt.facade.store(p, { content: 'x', cell_type: 'Fact', salience: 0.5, scene_id: MISSING_ID }), 'NOT_FOUND');
  });

  it('gets a scene with its cell ids (and hydrated cells), lists scenes in read scope with a cursor', async () => {
    const t = freshTenant();
    const p = await rt.principal({ tenant: t, agent: 'a', projects: ['p1', 'p2'] });
    const narrow = await rt.principal({ tenant: t, agent: 'n', projects: ['p2'] });
    const s1 = await rt.facade.openSession(p, { project: 'p1', title: 'first' });
    const c1 = await rt.facade.store(p, { content: 'one', cell_type: 'Fact', salience: 0.5 });
    const c2 = await rt.facade.store(p, { content: 'two', cell_type: 'Fact', salience: 0.5 });
    const scene = await rt.facade.getScene(p, s1.scene_id, { withNodes: true });
    expect(scene).toMatchObject({ scene_id: s1.scene_id, project: 'p1', title: 'first', created_by: 'a', cell_count: 2, consolidated: false });
    expect(scene.cell_ids).toEqual([c1.node_id, c2.node_id]);
    expect(scene.cells?.map((c) => c.content)).toEqual(['one', 'two']);
    expect((await rt.facade.getScene(p, s1.scene_id)).cells).toBeUndefined();
    await expectCode(rt.facade.getScene(narrow, s1.scene_id), 'NOT_FOUND');
    const s2 = await rt.facade.openSession(p, { project: 'p2', title: 'second' });
    const s3 = await rt.facade.openSession(p, { project: 'p2', title: 'third' });
    const page1 = await rt.facade.listScenes(p, { limit: 2 });
    expect(page1.items.map((s) => s.scene_id)).toEqual([s3.scene_id, s2.scene_id]);
    const page2 = await rt.facade.listScenes(p, { limit: 2, cursor: page1.next_cursor ?? '' });
    expect(page2.items.map((s) => s.scene_id)).toEqual([s1.scene_id]);
    expect(page2.next_cursor).toBeNull();
    expect((await rt.facade.listScenes(p, { limit: 10, project: 'p1' })).items.map((s) => s.scene_id)).toEqual([s1.scene_id]);
    expect((await rt.facade.listScenes(narrow, { limit: 10 })).items.map((s) => s.scene_id)).toEqual([s3.scene_id, s2.scene_id]);
    expect((await rt.facade.listScenes(narrow, { limit: 10, project: 'p1' })).items).toEqual([]);
    await expectInvalidField(rt.facade.getScene(p, 'zzz'), 'scene_id');
  });

  it('consolidates a scene into one L1 cell of central, salient sentences, in their original order', async () => {
    const p = await rt.principal({ tenant: freshTenant(), agent: 'a' });
    const s = await rt.facade.openSession(p, { project: 'ops', title: 'checkout incident' });
    await rt.facade.store(p, { content: 'The checkout API failed at noon. The checkout API connection pool was exhausted.', cell_type: 'Risk', salience: 0.9 });
    await rt.facade.store(p, { content: 'Lunch was pizza.', cell_type: 'Context', salience: 0.1 });
    await rt.facade.store(p, { content: 'We raised the checkout API connection pool size. The checkout API recovered.', cell_type: 'Lesson', salience: 0.8 });
    const l1 = await rt.facade.consolidateScene(p, s.scene_id);
    expect(l1).toMatchObject({ layer: 'L1', scene_id: s.scene_id, project: 'ops', source_agent: 'a', salience: 0.9, source_ref: { kind: 'scene', locator: s.scene_id } });
    expect(l1.cell_type).toBe('Risk');
    expect(l1.content).toContain('connection pool was exhausted');
    expect(l1.content.indexOf('failed at noon')).toBeLessThan(l1.content.indexOf('raised the checkout API'));
    expect(l1.content.length).toBeLessThanOrEqual(rt.facade.config.summaryBudgetChars);
    expect((await rt.facade.getScene(p, s.scene_id)).consolidated).toBe(true);
    // Unchanged scene: the same L1 cell comes back; a new cell makes the next consolidation fresh.
    expect((await rt.facade.consolidateScene(p, s.scene_id)).node_id).toBe(l1.node_id);
    await rt.facade.store(p, { content: 'Follow-up: alert on pool saturation.', cell_type: 'Task', salience: 0.6 });
    expect((await rt.facade.consolidateScene(p, s.scene_id)).node_id).not.toBe(l1.node_id);
  });

  it('drops low-salience, off-topic sentences first when the budget is tight', async () => {
    const local = await createTestRuntime({ driver, facade: { summaryBudgetChars: 120 } });
    try {
      const p = await local.principal({ tenant: freshTenant(), agent: 'a' });
      const s = await local.facade.openSession(p, { project: 'ops' });
      await local.facade.store(p, { content: 'The search indexer lags behind the search queue.', cell_type: 'Risk', salience: 1 });
      await local.facade.store(p, { content: 'Someone brought cake.', cell_type: 'Context', salience: 0 });
      await local.facade.store(p, { content: 'The search indexer queue needs more search workers.', cell_type: 'Task', salience: 0.9 });
      const l1 = await local.facade.consolidateScene(p, s.scene_id);
      expect(l1.content).not.toContain('cake');
      expect(l1.content.length).toBeLessThanOrEqual(120);
    } finally {
      await local.close();
    }
  });

  it('refuses to consolidate an empty scene', async () => {
    const p = await rt.principal({ tenant: freshTenant(), agent: 'a' });
    const s = await rt.facade.openSession(p, { project: 'empty' });
    await expectCode(rt.facade.consolidateScene(p, s.scene_id), 'CONFLICT');
  });
});
