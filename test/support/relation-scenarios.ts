/** The relation scenarios (docs/relations.md), declared on any harness: test/service/facade-relations.test.ts (PGlite, pg over the wire), test/store/relations-native.test.ts (native PostgreSQL). */
import { expect, it } from 'vitest';
import type { Principal } from '../../src/core/principal.js';
import { MAX_RELATIONS_PER_CELL } from '../../src/core/relation-schemas.js';
import { expectCode, expectInvalidField, freshTenant, MISSING_ID, refusalShape as refusal } from './facade-expectations.js';
import type { ScenarioHarness } from './scenario-harness.js';

/** Declares the scenarios (call inside a describe); h() answers the harness once its beforeAll ran. */
export function relationScenarios(h: () => ScenarioHarness): void {
  let serial = 0;

  /** A cell with words of its own, so no store reinforces another. */
  const cell = async (p: Principal, extra: Record<string, unknown> = {}): Promise<string> => {
    serial += 1;
    const words = ['amber', 'birch', 'cobalt', 'delta', 'ember', 'fjord', 'garnet', 'harbor', 'indigo', 'juniper'];
    const content = `Note ${serial}: the ${words[serial % words.length]} ${words[(serial * 3) % words.length]} runbook ${serial * 7919} covers step ${serial}.`;
    return (await h().facade.store(p, { content, cell_type: 'Fact', salience: 0.5, ...extra })).node_id;
  };

  it('declares relations at store time and afterwards, reads them back and deletes one', async () => {
    const tenant = freshTenant();
    const w = await h().principal({ tenant, agent: 'w', default_project: 'p' });
    const question = await cell(w);
    const risk = await cell(w);
    const answer = await cell(w, { relations: [{ to: question, type: 'answers' }, { to: question, type: 'answers' }] });
    expect((await h().facade.cellRelations(w, answer)).relations).toEqual([{ from: answer, to: question, type: 'answers' }]);

    const added = await h().facade.addRelations(w, answer, { relations: [{ to: risk.toUpperCase(), type: 'mitigates' }, { to: question, type: 'answers' }] });
    expect(added.relations).toEqual([
      { from: answer, to: question, type: 'answers' },
      { from: answer, to: risk, type: 'mitigates' },
    ]);
    await h().facade.deleteRelation(w, answer, { to: question, type: 'answers' });
    expect((await h().facade.cellRelations(w, answer)).relations).toEqual([{ from: answer, to: risk, type: 'mitigates' }]);
    await expectCode(h().facade.deleteRelation(w, answer, { to: question, type: 'answers' }), 'NOT_FOUND');
  });

  it('refuses a target of another tenant, another project or a deleted cell exactly as a random id', async () => {
    const tenant = freshTenant();
    const w = await h().principal({ tenant, agent: 'w', projects: ['p'], default_project: 'p' });
    const wide = await h().principal({ tenant, agent: 'wide', projects: ['p', 'q'], default_project: 'q' });
    const stranger = await h().principal({ tenant: freshTenant('other'), agent: 'w', default_project: 'p' });
    const mine = await cell(w);
    const foreign = await cell(stranger);
    const otherProject = await cell(wide);
    const deleted = await cell(w);
    await h().facade.deleteCell(w, deleted);

    const random = await refusal(h().facade.addRelations(w, mine, { relations: [{ to: MISSING_ID, type: 'answers' }] }), MISSING_ID);
    expect(random).toMatchObject({ code: 'NOT_FOUND' });
    for (const target of [foreign, otherProject, deleted]) {
      expect(await refusal(h().facade.addRelations(w, mine, { relations: [{ to: target, type: 'answers' }] }), target)).toEqual(random);
      expect(await refusal(h().facade.store(w, { content: `A statement about ${target}`, cell_type: 'Fact', salience: 0.5, relations: [{ to: target, type: 'answers' }] }), target)).toEqual(random);
    }
    // Nothing of a refused store was written.
    expect((await h().facade.listCells(w, { limit: 100 })).items.map((c) => c.node_id)).toEqual([mine]);
    // The relation the wider key declares to another project is not shown to a key that cannot read that project.
    const inP = await cell(w);
    await h().facade.addRelations(wide, mine, { relations: [{ to: otherProject, type: 'depends_on' }, { to: inP, type: 'depends_on' }] });
    expect((await h().facade.cellRelations(w, mine)).relations.map((r) => r.to)).toEqual([inP]);
    // Nor can that key delete it: the relation reads as one never declared, and stays.
    const never = await refusal(h().facade.deleteRelation(w, mine, { to: MISSING_ID, type: 'depends_on' }), MISSING_ID);
    expect(await refusal(h().facade.deleteRelation(w, mine, { to: otherProject, type: 'depends_on' }), otherProject)).toEqual(never);
    expect((await h().facade.cellRelations(wide, mine)).relations.map((r) => r.to)).toContain(otherProject);
  });

  it('spells types as snake_case words, leaves implicit edge names to the server, bounds relations per cell', async () => {
    const tenant = freshTenant();
    const w = await h().principal({ tenant, agent: 'w', default_project: 'p' });
    const from = await cell(w);
    const to = await cell(w);
    for (const type of ['Answers', 'depends-on', '_x', 'a__b', 'x'.repeat(41), 'supersedes', 'in_scene', '']) {
      await expectInvalidField(h().facade.addRelations(w, from, { relations: [{ to, type }] }), 'relations.0.type');
    }
    await expectInvalidField(h().facade.addRelations(w, from, { relations: [{ to: from, type: 'answers' }] }), 'relations');
    const targets: string[] = [];
    for (let i = 0; i <= MAX_RELATIONS_PER_CELL; i += 1) targets.push(await cell(w));
    const many = targets.map((t) => ({ to: t, type: 'cites' }));
    await expectInvalidField(h().facade.store(w, { content: 'Too many relations here.', cell_type: 'Fact', salience: 0.5, relations: many }), 'relations');
    await h().facade.addRelations(w, from, { relations: many.slice(0, MAX_RELATIONS_PER_CELL - 1) });
    await h().facade.addRelations(w, from, { relations: [{ to, type: 'cites' }] });
    await expectInvalidField(h().facade.addRelations(w, from, { relations: [many[MAX_RELATIONS_PER_CELL] as { to: string; type: string }] }), 'relations');
    expect((await h().facade.cellRelations(w, from)).relations).toHaveLength(MAX_RELATIONS_PER_CELL);
  });

  it('counts relations to cells the caller cannot read against the bound, and its refusal numbers none of them', async () => {
    const tenant = freshTenant();
    const w = await h().principal({ tenant, agent: 'w', projects: ['p'], default_project: 'p' });
    const wide = await h().principal({ tenant, agent: 'wide', projects: ['p', 'q'], default_project: 'q' });
    const from = await cell(w);
    const hidden: { to: string; type: string }[] = [];
    for (let i = 1; i < MAX_RELATIONS_PER_CELL; i += 1) hidden.push({ to: await cell(wide), type: 'cites' });
    await h().facade.addRelations(wide, from, { relations: hidden });
    const [first, second] = [await cell(w), await cell(w)];
    expect((await h().facade.addRelations(w, from, { relations: [{ to: first, type: 'cites' }] })).relations.map((r) => r.to)).toEqual([first]);
    const refused = await expectCode(h().facade.addRelations(w, from, { relations: [{ to: second, type: 'cites' }] }), 'INVALID_ARGUMENT');
    expect(refused.message).toBe(`a cell declares at most ${MAX_RELATIONS_PER_CELL} relations, those to cells you cannot read included; these would pass it`);
  });

  it('needs the writer role to add or delete, the reader role to read', async () => {
    const tenant = freshTenant();
    const w = await h().principal({ tenant, agent: 'w', default_project: 'p' });
    const r = await h().principal({ tenant, agent: 'r', roles: ['reader'], default_project: 'p' });
    const a = await cell(w);
    const b = await cell(w, { relations: [] });
    await expectCode(h().facade.addRelations(r, a, { relations: [{ to: b, type: 'answers' }] }), 'FORBIDDEN');
    await expectCode(h().facade.deleteRelation(r, a, { to: b, type: 'answers' }), 'FORBIDDEN');
    expect((await h().facade.cellRelations(r, a)).relations).toEqual([]);
  });

  it('deletes a relation with either of its cells: delete, forget and purge', async () => {
    const tenant = freshTenant();
    const w = await h().principal({ tenant, agent: 'w', default_project: 'p' });
    const admin = await h().principal({ tenant, agent: 'root', roles: ['admin'], default_project: 'p' });
    const a = await cell(w);
    const b = await cell(w, { relations: [{ to: a, type: 'answers' }] });
    const c = await cell(w, { relations: [{ to: b, type: 'answers' }] });
    const count = async (): Promise<number> =>
      (await h().db.query<{ n: number }>('SELECT count(*)::int AS n FROM cell_relations WHERE tenant_id = $1', [tenant])).rows[0]?.n ?? -1;
    expect(await count()).toBe(2);
    await h().facade.deleteCell(w, a);
    expect((await h().facade.cellRelations(w, b)).relations).toEqual([]);
    expect(await count()).toBe(1);
    await h().facade.deleteCell(w, b);
    expect((await h().facade.cellRelations(w, c)).relations).toEqual([]);
    expect(await count()).toBe(0);
    await cell(w, { relations: [{ to: c, type: 'answers' }] });
    expect(await count()).toBe(1);
    await h().facade.purgeProject(admin, { project: 'p' });
    expect(await count()).toBe(0);
  });

  it('tells beacon owners of the cell that its relations changed: an updated diff of that cell, by the agent who changed them, in its project only', async () => {
    const tenant = freshTenant();
    const author = await h().principal({ tenant, agent: 'author', default_project: 'p' });
    const linker = await h().principal({ tenant, agent: 'linker', default_project: 'p' });
    const watcher = await h().principal({ tenant, agent: 'watcher', default_project: 'p' });
    const outsider = await h().principal({ tenant, agent: 'outsider', projects: ['q'], default_project: 'q' });
    const text = 'Refunds after noon go to the overnight queue of the billing desk.';
    for (const p of [watcher, outsider, linker]) await h().facade.placeBeacon(p, { text, threshold: 0.3, include_own: false });
    const decision = (await h().facade.store(author, { content: text, cell_type: 'Decision', salience: 0.9 })).node_id;
    const target = await cell(author);
    const targetContent = (await h().facade.getCell(author, target)).content;
    const inbox = async (p: Principal): Promise<readonly { op: string; node_id: string; source_agent: string; supersedes: string | null; preview: string }[]> =>
      (await h().facade.drainInbox(p, { page_size: 100 })).diffs;
    expect((await inbox(watcher)).map((d) => [d.op, d.node_id])).toContainEqual(['created', decision]);
    await inbox(linker);
    await inbox(outsider);

    await h().facade.addRelations(linker, decision, { relations: [{ to: target, type: 'cites' }] });
    const told = await inbox(watcher);
    expect(told).toEqual([expect.objectContaining({ op: 'updated', node_id: decision, source_agent: 'linker', supersedes: null, preview: text })]);
    expect(JSON.stringify(told)).not.toContain(targetContent);
    expect(await inbox(linker)).toEqual([]);
    expect(await inbox(outsider)).toEqual([]);
    // Declaring what is already declared changes nothing and tells nobody.
    await h().facade.addRelations(linker, decision, { relations: [{ to: target, type: 'cites' }] });
    expect(await inbox(watcher)).toEqual([]);

    await h().facade.deleteRelation(author, decision, { to: target, type: 'cites' });
    expect(await inbox(watcher)).toEqual([expect.objectContaining({ op: 'updated', node_id: decision, source_agent: 'author', supersedes: null })]);
    expect(await inbox(outsider)).toEqual([]);
  });
}
