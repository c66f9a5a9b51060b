/**
 * The neighbourhood drawn on a cell's and a source's console page, in a real headless Chromium: the
 * SVG holds exactly the members and edges the REST subgraph answers at the chosen depth (1–3),
 * edges labelled by type, declared ones solid and implicit ones dashed, each member a link to its
 * page, and a clipped walk says it was truncated.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredNode } from '../../src/core/entities.js';
import type { Subgraph } from '../../src/core/relation-schemas.js';
import { IMPLICIT_RELATION_TYPES } from '../../src/core/relation-types.js';
import type { SourceChunksPage } from '../../src/core/source-schemas.js';
import { findChromium, type HeadlessChromium } from '../support/chromium.js';
import { startConsoleServer, type ConsoleServer } from '../support/console-server.js';
import { skipTier } from '../support/test-tiers.js';
import { createTestDb } from '../support/test-db.js';
import { openSignedIn } from './console-sign-in.js';

const chromiumPath = findChromium();
const DRAWN = 50;
const implicit = new Set<string>(IMPLICIT_RELATION_TYPES);

interface Drawn {
  readonly members: { id: string; depth: number; href: string | null }[];
  readonly edges: { from: string; to: string; type: string; label: string; implicit: boolean }[];
}

describe.skipIf(chromiumPath === undefined && skipTier('browser', 'chromium'))('the console’s subgraph drawing in headless Chromium', () => {
  let server: ConsoleServer;
  let chromium: HeadlessChromium;
  let page: Page;
  const pageErrors: string[] = [];
  const ids: Record<'answered' | 'answer' | 'revised' | 'dependent', string> = { answered: '', answer: '', revised: '', dependent: '' };

  const store = async (body: Record<string, unknown>): Promise<string> => (await server.rest<StoredNode>('alice', 'POST', '/v1/cells', { cell_type: 'Fact', ...body })).node_id;
  const rest = (start: string, depth: number): Promise<Subgraph> => server.rest<Subgraph>('carol', 'GET', `/v1/cells/${start}/subgraph?depth=${depth}&max_members=${DRAWN}`);

  /** What the drawing shows, read from the SVG once the summary names `depth`. */
  async function drawn(depth: number): Promise<Drawn> {
    await expect.poll(() => page.locator('.subgraph-summary').textContent()).toContain(`within depth ${depth}`);
    return page.locator('svg.subgraph').evaluate((svg) => ({
      members: [...svg.querySelectorAll('.member')].map((m) => ({ id: m.getAttribute('data-id') ?? '', depth: Number(m.getAttribute('data-depth')), href: m.getAttribute('href') })),
      edges: [...svg.querySelectorAll('.relation')].map((e) => ({
        from: e.getAttribute('data-from') ?? '',
        to: e.getAttribute('data-to') ?? '',
        type: e.getAttribute('data-type') ?? '',
        label: e.querySelector('text')?.textContent ?? '',
        implicit: e.classList.contains('implicit'),
      })),
    }));
  }

  /** The drawing against the REST answer: the same members at the same depths, the same edges, each labelled, explicit or implicit by type. */
  function expectSame(shown: Drawn, answer: Subgraph): void {
    const byId = (a: { id: string }, b: { id: string }): number => (a.id < b.id ? -1 : 1);
    expect(shown.members.map(({ id, depth }) => ({ id, depth })).sort(byId)).toEqual(answer.members.map(({ id, depth }) => ({ id, depth })).sort(byId));
    const key = (e: { from: string; to: string; type: string }): string => `${e.from} ${e.type} ${e.to}`;
    expect(shown.edges.map(key).sort()).toEqual(answer.relations.map(key).sort());
    for (const edge of shown.edges) {
      expect(edge.label).toBe(edge.type);
      expect(edge.implicit, edge.type).toBe(implicit.has(edge.type));
    }
  }

  beforeAll(async () => {
    server = await startConsoleServer({ openDb: createTestDb });
    ids.answered = await store({ content: 'The ledger queue drains every night at two.' });
    ids.answer = await store({ content: 'Drain failures page the on-call engineer by phone.', relations: [{ to: ids.answered, type: 'answers' }] });
    ids.revised = await store({ content: 'Drain failures page the on-call engineer and open an incident.', supersedes: ids.answer });
    ids.dependent = await store({ content: 'The incident bot depends on paging working.', relations: [{ to: ids.revised, type: 'depends_on' }] });
    ({ chromium, page } = await openSignedIn(chromiumPath ?? '', server.url, server.keys.carol.key, pageErrors));
  });
  afterAll(async () => {
    await chromium?.close();
    await server?.close();
  });

  it('draws what the REST subgraph answers at each depth, declared edges solid, implicit ones dashed, each member a link', async () => {
    await page.goto(`${server.url}/console/#/cells/${ids.answered}`);
    const two = await drawn(2);
    expectSame(two, await rest(ids.answered, 2));
    expect(two.members.map((m) => m.id).sort()).toEqual([ids.answered, ids.answer, ids.revised].sort());
    expect(two.edges).toContainEqual({ from: ids.answer, to: ids.answered, type: 'answers', label: 'answers', implicit: false });
    expect(two.edges).toContainEqual({ from: ids.revised, to: ids.answer, type: 'supersedes', label: 'supersedes', implicit: true });
    for (const member of two.members) expect(member.href).toBe(`#/cells/${member.id}`);

    await page.getByLabel('Depth').selectOption('1');
    const one = await drawn(1);
    expectSame(one, await rest(ids.answered, 1));
    expect(one.members.map((m) => m.id).sort()).toEqual([ids.answered, ids.answer].sort());

    await page.getByLabel('Depth').selectOption('3');
    const three = await drawn(3);
    expectSame(three, await rest(ids.answered, 3));
    expect(three.members.map((m) => m.id)).toContain(ids.dependent);
    expect(await page.locator('.subgraph-summary').textContent()).not.toContain('truncated');

    // A member's box opens its page.
    await page.locator(`svg.subgraph a.member[data-id="${ids.dependent}"]`).click();
    await expect.poll(() => page.locator('pre.content').first().textContent()).toBe('The incident bot depends on paging working.');
  });

  it('says when the walk was truncated, drawing the members the REST subgraph answered', async () => {
    const spokes: string[] = [];
    for (let i = 0; i < 32; i++) spokes.push(await store({ content: `Spoke ${i}: shard ${i * 7} of the ledger holds account range ${i * 1000}.` }));
    const hub = await store({ content: 'The ledger is split into shards by account range.', relations: spokes.map((to) => ({ to, type: 'covers' })) });
    const questions: string[] = [];
    for (let i = 0; i < DRAWN - spokes.length; i++) questions.push(await store({ content: `Question ${i}: which shard holds account ${i * 31337}?`, relations: [{ to: hub, type: 'asks_about' }] }));
    // Each store made its own cell (none restated another): the hub has 50 neighbours, one more member than drawn.
    expect(new Set([...spokes, ...questions, hub]).size).toBe(DRAWN + 1);
    const answer = await rest(hub, 1);
    expect(answer.truncated).toBe(true);
    await page.goto(`${server.url}/console/#/cells/${hub}`);
    await page.getByLabel('Depth').selectOption('1');
    const shown = await drawn(1);
    expectSame(shown, answer);
    expect(shown.members).toHaveLength(DRAWN);
    expect(await page.locator('.subgraph-summary').textContent()).toContain(`truncated at ${DRAWN} members`);
  });

  it('draws a source’s neighbourhood from its first chunk: the source and the next chunk, linked to their pages', async () => {
    const text = `# Pager runbook\n\n${Array.from({ length: 8 }, (_, i) => `## Step ${i}\n\n${'Acknowledge the page, then check the drain queue depth. '.repeat(30)}`).join('\n\n')}`;
    await server.rest('alice', 'POST', '/v1/sources', { text, format: 'markdown', title: 'Pager runbook', source_id: 'pager-runbook' });
    const chunks = await server.rest<SourceChunksPage>('carol', 'GET', '/v1/sources/pager-runbook/chunks?limit=2');
    const [first, second] = chunks.chunks.map((c) => c.node_id ?? '');
    await page.goto(`${server.url}/console/#/sources/pager-runbook?project=default`);
    const shown = await drawn(2);
    expectSame(shown, await rest(first ?? '', 2));
    expect(shown.members.find((m) => m.id === 'pager-runbook')?.href).toBe('#/sources/pager-runbook?project=default');
    expect(shown.edges).toContainEqual({ from: first, to: second, type: 'next_chunk', label: 'next_chunk', implicit: true });
    expect(shown.edges).toContainEqual({ from: first, to: 'pager-runbook', type: 'chunk_of', label: 'chunk_of', implicit: true });
    expect(pageErrors).toEqual([]);
  });
});
