/** The subgraph scenarios (docs/relations.md), declared on any harness: test/service/facade-subgraph.test.ts (PGlite, pg over the wire), test/store/relations-native.test.ts (native PostgreSQL). */
import { expect, it } from 'vitest';
import type { InvalidArgumentError } from '../../src/core/errors.js';
import type { Principal } from '../../src/core/principal.js';
import { GRAPH_CONTEXT_PER_HIT, type Subgraph } from '../../src/core/relation-schemas.js';
import { expectCode, freshTenant, MISSING_ID } from './facade-expectations.js';
import type { ScenarioHarness } from './scenario-harness.js';

const words = (seed: string, n: number): string => Array.from({ length: n }, (_, i) => `${seed}${i % 17} term${(i * 7) % 31}`).join(' ');

/** Declares the scenarios (call inside a describe); h() answers the harness once its beforeAll ran. */
export function subgraphScenarios(h: () => ScenarioHarness): void {
  let serial = 0;

  const cell = async (p: Principal, extra: Record<string, unknown> = {}): Promise<string> => {
    serial += 1;
    const content = `Entry ${serial} of the ledger ${serial * 7919}: quartz ${serial * 31} maple ${serial * 13}.`;
    return (await h().facade.store(p, { content, cell_type: 'Fact', salience: 0.5, ...extra })).node_id;
  };
  const chunkIds = async (tenant: string, sourceId: string): Promise<string[]> =>
    (
      await h().db.query<{ node_id: string }>('SELECT node_id::text AS node_id FROM cells WHERE tenant_id = $1 AND source_id = $2 ORDER BY chunk_index', [tenant, sourceId])
    ).rows.map((r) => r.node_id);
  const view = (graph: Subgraph): string[] => graph.members.map((m) => `${m.depth} ${m.id} ${m.discovered_relation ?? '-'} ${m.discovered_via ?? '-'}`);

  it('walks every implicit edge kind built by a real sequence of calls', async () => {
    const tenant = freshTenant();
    const author = await h().principal({ tenant, agent: 'author', default_project: 'p' });
    const other = await h().principal({ tenant, agent: 'other', default_project: 'p' });
    const opened = await h().facade.openSession(author, { project: 'p', title: 'release planning' });
    const first = await h().facade.store(author, { content: 'Releases ship on Tuesdays from the main branch.', cell_type: 'Decision', salience: 0.9 });
    const second = await h().facade.store(author, { content: 'Releases now ship on Thursdays after the freeze review.', cell_type: 'Decision', salience: 0.9, supersedes: first.node_id });
    const restated = await h().facade.store(other, { content: 'Releases now ship on Thursdays after the freeze review.', cell_type: 'Decision', salience: 0.9 });
    expect(restated).toMatchObject({ node_id: second.node_id, reinforced: true });
    for (let i = 0; i < 2; i += 1) await h().facade.recall(author, { query: 'Releases now ship on Thursdays after the freeze review.', k: 1 });
    await h().facade.flushHits();
    await h().facade.ingestSource(author, { text: `${words('alpha', 300)}\n\n${words('beta', 300)}`, source_id: 'manual', title: 'Release manual' });
    await h().facade.ingestSource(author, {
      turns: [
        { user: words('gamma', 150), assistant: words('delta', 150) },
        { user: words('epsilon', 150), assistant: words('zeta', 150) },
      ],
      source_id: 'chat',
    });
    const manual = await chunkIds(tenant, 'manual');
    const chat = await chunkIds(tenant, 'chat');
    expect(manual.length).toBeGreaterThanOrEqual(2);
    expect(chat.length).toBeGreaterThanOrEqual(3);
    await h().facade.addRelations(author, second.node_id, { relations: [{ to: manual[0] as string, type: 'documented_in' }, { to: chat[1] as string, type: 'discussed_in' }] });

    const graph = await h().facade.cellSubgraph(author, second.node_id, { depth: 3, max_members: 1000 });
    const types = new Set(graph.relations.map((r) => r.type));
    for (const type of ['supersedes', 'in_scene', 'in_session', 'chunk_of', 'next_chunk', 'same_thread', 'corroborated_by', 'promoted_from', 'documented_in', 'discussed_in']) {
      expect(types, type).toContain(type);
    }
    const promoted = graph.members.find((m) => m.discovered_relation === 'promoted_from');
    expect(graph.relations).toContainEqual({ from: promoted?.id, to: second.node_id, type: 'promoted_from' });
    expect(graph.relations).toContainEqual({ from: second.node_id, to: first.node_id, type: 'supersedes' });
    expect(graph.relations).toContainEqual({ from: second.node_id, to: opened.scene_id, type: 'in_scene' });
    expect(graph.relations).toContainEqual({ from: second.node_id, to: opened.session_id, type: 'in_session' });
    expect(graph.relations).toContainEqual({ from: manual[0], to: 'manual', type: 'chunk_of' });
    expect(graph.relations).toContainEqual({ from: manual[0], to: manual[1], type: 'next_chunk' });
    expect(graph.relations).toContainEqual({ from: chat[1], to: chat[0], type: 'same_thread' });
    const corroboration = graph.members.find((m) => m.kind === 'corroboration');
    expect(corroboration).toMatchObject({ depth: 1, discovered_relation: 'corroborated_by', discovered_via: second.node_id, preview: 'Releases now ship on Thursdays after the freeze review.' });
    expect(graph.members[0]).toMatchObject({ id: second.node_id, kind: 'cell', cell_type: 'Decision', depth: 0, discovered_relation: null, discovered_via: null, project: 'p' });
    expect(graph.members.find((m) => m.id === 'manual')).toMatchObject({ kind: 'source', preview: 'Release manual', depth: 2, discovered_via: manual[0] });
    expect(graph.members.find((m) => m.id === opened.scene_id)).toMatchObject({ kind: 'scene', preview: 'release planning', depth: 1 });
    expect(graph.truncated).toBe(false);
    // Every relation joins two members.
    const ids = new Set(graph.members.map((m) => m.id));
    for (const r of graph.relations) expect(ids.has(r.from) && ids.has(r.to), JSON.stringify(r)).toBe(true);
    // relation_types narrows the walk to those edges.
    const narrowed = await h().facade.cellSubgraph(author, second.node_id, { depth: 3, relation_types: ['supersedes'] });
    expect(view(narrowed)).toEqual([`0 ${second.node_id} - -`, `1 ${first.node_id} supersedes ${second.node_id}`]);
    expect(narrowed.relations).toEqual([{ from: second.node_id, to: first.node_id, type: 'supersedes' }]);
  });

  it('is breadth-first and exact on a graph with a cycle: order, depth, discovered_via, truncated', async () => {
    const tenant = freshTenant();
    const w = await h().principal({ tenant, agent: 'w', default_project: 'p' });
    const [x1, x2, x3, x4, x5] = [await cell(w), await cell(w), await cell(w), await cell(w), await cell(w)] as [string, string, string, string, string];
    await h().facade.addRelations(w, x1, { relations: [{ to: x2, type: 'a_first' }, { to: x4, type: 'd_fourth' }] });
    await h().facade.addRelations(w, x2, { relations: [{ to: x3, type: 'b_second' }] });
    await h().facade.addRelations(w, x3, { relations: [{ to: x1, type: 'c_back' }] });
    await h().facade.addRelations(w, x4, { relations: [{ to: x5, type: 'e_fifth' }] });

    const whole = await h().facade.cellSubgraph(w, x1, {});
    expect(view(whole)).toEqual([`0 ${x1} - -`, `1 ${x2} a_first ${x1}`, `1 ${x3} c_back ${x1}`, `1 ${x4} d_fourth ${x1}`, `2 ${x5} e_fifth ${x4}`]);
    expect(whole.truncated).toBe(false);
    expect(new Set(whole.relations.map((r) => `${r.from} ${r.type} ${r.to}`))).toEqual(
      new Set([`${x1} a_first ${x2}`, `${x1} d_fourth ${x4}`, `${x2} b_second ${x3}`, `${x3} c_back ${x1}`, `${x4} e_fifth ${x5}`]),
    );
    expect(whole.relations).toHaveLength(5);

    const shallow = await h().facade.cellSubgraph(w, x1, { depth: 1 });
    expect(view(shallow)).toEqual(view(whole).slice(0, 4));
    expect(shallow.truncated).toBe(false);

    const clipped = await h().facade.cellSubgraph(w, x1, { max_members: 3 });
    expect(view(clipped)).toEqual(view(whole).slice(0, 3));
    expect(clipped.truncated).toBe(true);
    expect(clipped.relations.map((r) => r.type).sort()).toEqual(['a_first', 'b_second', 'c_back']);

    // Exactly full after depth 1, with more at depth 2: truncated.
    const full = await h().facade.cellSubgraph(w, x1, { max_members: 4 });
    expect(view(full)).toEqual(view(whole).slice(0, 4));
    expect(full.truncated).toBe(true);
    expect((await h().facade.cellSubgraph(w, x1, { max_members: 5 })).truncated).toBe(false);

    // From x5 the cycle is reached at depth 2 and walked once.
    const fromEnd = await h().facade.cellSubgraph(w, x5, { depth: 10 });
    expect(view(fromEnd)).toEqual([`0 ${x5} - -`, `1 ${x4} e_fifth ${x5}`, `2 ${x1} d_fourth ${x4}`, `3 ${x2} a_first ${x1}`, `3 ${x3} c_back ${x1}`]);
  });

  it('keeps breadth-first order across a level wider than one step expands, and clips it mid-level', async () => {
    const w = await h().principal({ tenant: freshTenant(), agent: 'w', default_project: 'p' });
    const hub = await cell(w);
    const shared = await cell(w);
    const fans: string[] = [];
    const leaves = new Map<string, string>();
    for (let i = 0; i < 20; i += 1) {
      const fan = await cell(w);
      const leaf = await cell(w);
      fans.push(fan);
      leaves.set(fan, leaf);
      await h().facade.addRelations(w, fan, { relations: [{ to: leaf, type: 'leaf' }, { to: shared, type: 'shared' }] });
    }
    await h().facade.addRelations(w, hub, { relations: fans.map((to) => ({ to, type: 'fan' })) });
    const ordered = [...fans].sort();
    // Level 2, by the position of the fan each is reached from, then type: a fan's leaf, then (once, through the first fan) shared.
    const second = ordered.flatMap((fan, i) => [`2 ${leaves.get(fan)} leaf ${fan}`, ...(i === 0 ? [`2 ${shared} shared ${fan}`] : [])]);
    const expected = [`0 ${hub} - -`, ...ordered.map((fan) => `1 ${fan} fan ${hub}`), ...second];
    const whole = await h().facade.cellSubgraph(w, hub, { depth: 2, max_members: 1000 });
    expect(view(whole)).toEqual(expected);
    expect(whole.truncated).toBe(false);
    expect(whole.relations).toHaveLength(60);
    for (const max of [40, 41, 42]) {
      const clipped = await h().facade.cellSubgraph(w, hub, { depth: 2, max_members: max });
      expect(view(clipped)).toEqual(expected.slice(0, max));
      expect(clipped.truncated).toBe(max < 42);
    }
  });

  it('leaves out a member the caller cannot read and does not walk through it', async () => {
    const tenant = freshTenant();
    const narrow = await h().principal({ tenant, agent: 'narrow', projects: ['p'], default_project: 'p' });
    const wide = await h().principal({ tenant, agent: 'wide', projects: ['p', 'q'], default_project: 'q' });
    const start = await cell(narrow);
    const hidden = await cell(wide);
    const beyond = await cell(narrow);
    const beside = await cell(narrow);
    await h().facade.addRelations(wide, start, { relations: [{ to: hidden, type: 'leads_to' }, { to: beside, type: 'near' }] });
    await h().facade.addRelations(wide, hidden, { relations: [{ to: beyond, type: 'leads_to' }] });
    const seenByWide = await h().facade.cellSubgraph(wide, start, {});
    expect(seenByWide.members.map((m) => m.id)).toEqual([start, hidden, beside, beyond]);
    const seenByNarrow = await h().facade.cellSubgraph(narrow, start, { depth: 10 });
    expect(view(seenByNarrow)).toEqual([`0 ${start} - -`, `1 ${beside} near ${start}`]);
    expect(seenByNarrow.relations).toEqual([{ from: start, to: beside, type: 'near' }]);
    // Clipped to two members, the unreadable node ahead of beside (leads_to sorts first) takes no place.
    const clipped = await h().facade.cellSubgraph(narrow, start, { max_members: 2 });
    expect(view(clipped)).toEqual(view(seenByNarrow));
    expect(clipped.truncated).toBe(false);
    // The start itself: another project's cell reads as a missing one.
    await expectCode(h().facade.cellSubgraph(narrow, hidden, {}), 'NOT_FOUND');
    const stranger = await h().principal({ tenant: freshTenant('other'), agent: 'x', default_project: 'p' });
    await expectCode(h().facade.cellSubgraph(stranger, start, {}), 'NOT_FOUND');
    // Another project's or tenant's start reads exactly as a random id: the same code, message and details, the id aside.
    const body = async (p: Principal, id: string): Promise<string> => {
      const { code, message, details } = await expectCode(h().facade.cellSubgraph(p, id, {}), 'NOT_FOUND');
      return JSON.stringify({ code, message, details }).replaceAll(id, '<id>');
    };
    const random = await body(narrow, MISSING_ID);
    expect(await body(narrow, hidden)).toBe(random);
    expect(await body(stranger, start)).toBe(random);
  });

  it('refuses depth 11 and max_members 1001 naming the limit', async () => {
    const w = await h().principal({ tenant: freshTenant(), agent: 'w', default_project: 'p' });
    const start = await cell(w);
    for (const [input, field, limit] of [
      [{ depth: 11 }, 'depth', 'at most 10'],
      [{ max_members: 1001 }, 'max_members', 'at most 1000'],
      [{ depth: 0 }, 'depth', 'at least 1'],
    ] as const) {
      const error = await expectCode(h().facade.cellSubgraph(w, start, input), 'INVALID_ARGUMENT');
      expect((error as InvalidArgumentError).issues).toContainEqual({ path: field, message: limit });
    }
  });

  it('graph_context gives each recall hit its one-hop relations, at most GRAPH_CONTEXT_PER_HIT, readable ends only', async () => {
    const tenant = freshTenant();
    const narrow = await h().principal({ tenant, agent: 'narrow', projects: ['p'], default_project: 'p' });
    const wide = await h().principal({ tenant, agent: 'wide', projects: ['p', 'q'], default_project: 'q' });
    const hub = (await h().facade.store(narrow, { content: 'The lighthouse beacon rotates every twelve seconds.', cell_type: 'Fact', salience: 0.5 })).node_id;
    const targets: string[] = [];
    for (let i = 0; i < GRAPH_CONTEXT_PER_HIT + 2; i += 1) targets.push(await cell(narrow));
    const hidden = await cell(wide);
    await h().facade.addRelations(wide, hub, { relations: [...targets.map((to) => ({ to, type: 'cites' })), { to: hidden, type: 'aaa_hidden' }] });
    const plain = await h().facade.recall(narrow, { query: 'lighthouse beacon rotates twelve seconds', k: 1, mode: 'lexical' });
    expect(plain.results[0]?.node_id).toBe(hub);
    expect(plain.results[0]).not.toHaveProperty('relations');
    const withContext = await h().facade.recall(narrow, { query: 'lighthouse beacon rotates twelve seconds', k: 1, mode: 'lexical', graph_context: true }, { withNodes: true });
    const relations = withContext.results[0]?.relations ?? [];
    expect(relations).toHaveLength(GRAPH_CONTEXT_PER_HIT);
    expect(relations).toEqual([...targets].sort().slice(0, GRAPH_CONTEXT_PER_HIT).map((to) => ({ from: hub, to, type: 'cites' })));
    // The wide key sees the relation into its project first (by type).
    const seenWide = await h().facade.recall(wide, { query: 'lighthouse beacon rotates twelve seconds', k: 1, mode: 'lexical', graph_context: true }, { project: 'p' });
    expect(seenWide.results[0]?.relations?.[0]).toEqual({ from: hub, to: hidden, type: 'aaa_hidden' });
  });

  it('walks the declared relations that held at an instant: valid_until at store, as_of on the subgraph and graph_context', async () => {
    const w = await h().principal({ tenant: freshTenant(), agent: 'w', default_project: 'p' });
    const before = new Date(Date.now() - 3_600_000).toISOString();
    const ends = new Date(Date.now() + 3_600_000).toISOString();
    const after = new Date(Date.now() + 7_200_000).toISOString();
    const target = await cell(w);
    const lasting = await cell(w);
    const start = (
      await h().facade.store(w, {
        content: 'The pelican bridge opens for tall ships at dawn.',
        cell_type: 'Fact',
        salience: 0.5,
        relations: [
          { to: target, type: 'holds_until', valid_until: ends },
          { to: lasting, type: 'holds_always' },
        ],
      })
    ).node_id;
    expect((await h().facade.cellRelations(w, start)).relations).toEqual([
      { from: start, to: target, type: 'holds_until', valid_until: new Date(ends).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z') },
      { from: start, to: lasting, type: 'holds_always' },
    ].sort((a, b) => (a.to < b.to ? -1 : 1)));
    const ids = async (as_of?: string): Promise<string[]> =>
      (await h().facade.cellSubgraph(w, start, as_of === undefined ? { depth: 1 } : { depth: 1, as_of })).members.map((m) => m.id).sort();
    expect(await ids()).toEqual([start, target, lasting].sort());
    expect(await ids(after)).toEqual([start, lasting].sort());
    // Before either was declared, neither held.
    expect(await ids(before)).toEqual([start]);
    const context = async (as_of?: string): Promise<string[]> => {
      const recalled = await h().facade.recall(w, { query: 'pelican bridge opens for tall ships at dawn', k: 1, mode: 'lexical', graph_context: true }, as_of === undefined ? {} : { validity: { as_of } });
      expect(recalled.results[0]?.node_id).toBe(start);
      return (recalled.results[0]?.relations ?? []).map((r) => r.type).sort();
    };
    expect(await context()).toEqual(['holds_always', 'holds_until']);
    expect(await context(after)).toEqual(['holds_always']);
    // A relation cannot end in the past.
    const error = await expectCode(h().facade.addRelations(w, start, { relations: [{ to: target, type: 'ended', valid_until: before }] }), 'INVALID_ARGUMENT');
    expect((error as InvalidArgumentError).issues).toContainEqual({ path: 'relations.valid_until', message: 'must be in the future' });
  });
}
