/**
 * Sources through export and import on PGlite and native PostgreSQL (docs/export-format.md): a
 * markdown source and a conversation come back whole (read back byte for byte), ready, recalled
 * through chunks that name them, and deleted with their imported chunks; a source the target
 * already holds is kept with its chunks; an older export without sources still imports; a
 * tenant's import holds a source to the tenant's agents and to no time later than the import.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import type { Principal } from '../../src/core/principal.js';
import type { ManagedMemoryFacade } from '../../src/service/index.js';
import type { Db } from '../../src/store/db.js';
import { expectCode } from '../support/facade-expectations.js';
import { DATABASE_KINDS, exportLines, facadeOver, HASH, openPortability, records, type PortabilitySetup, type TempFiles } from './portability-support.js';

const FUTURE = '2999-01-01T00:00:00.000000Z';

const HANDBOOK = [
  '# Quince handbook',
  '## Settlement',
  'The quince settlement rule closes every ledger at 17:00 UTC. Emoji 👍🏽 and 漢字 stay whole.',
  '## Refunds',
  `${'Refunds of the quince desk go to the refunds queue before noon. '.repeat(60)}`,
  '## Escalation',
  'An escalation of the quince desk pages the on-call lead 🚨 within five minutes.',
].join('\n\n');
const TURNS = [
  { user: 'Where do quince refunds go?', assistant: 'To the refunds queue, before noon.' },
  { user: 'And escalations?', assistant: 'They page the on-call lead within five minutes.' },
];

/** A source's whole text, read in slices of 997 characters. */
async function readWhole(facade: ManagedMemoryFacade, principal: Principal, sourceId: string): Promise<string> {
  const slices: string[] = [];
  let offset: number | null = 0;
  while (offset !== null) {
    const slice = await facade.readSource(principal, { source_id: sourceId, offset, limit: 997 });
    slices.push(slice.text);
    offset = slice.next_offset;
  }
  return slices.join('');
}

describe.each(DATABASE_KINDS)('sources through export and import on $kind', { timeout: 180_000 }, ({ kind, skip }) => {
  const embedder = HASH();
  let setup: PortabilitySetup;
  let source: Db;
  let facade: ManagedMemoryFacade;
  let tenant: string;
  let adminKey: string;
  let alice: Principal;
  let bob: Principal;

  beforeAll(async () => {
    if (skip) return;
    setup = await openPortability(kind, embedder, 'sources');
    ({ db: source, facade, tenant } = setup);
    const { keys } = setup;
    adminKey = (await keys.createKey({ tenant, agent: 'alice', roles: ['admin'] })).key;
    alice = await facade.authenticate(adminKey);
    bob = await facade.authenticate((await keys.createKey({ tenant, agent: 'bob', roles: ['writer'], trust: 0.7 })).key);
    await facade.ingestSource(bob, { text: HANDBOOK, format: 'markdown', title: 'Handbook', source_id: 'handbook', observation_date: '2026-07-04', metadata: { team: 'ops' } });
    await facade.ingestSource(bob, { turns: TURNS, user_name: 'Ana', source_id: 'chat' });
    await facade.store(bob, { content: 'The quince desk moved to the third floor.', cell_type: 'Fact', salience: 0.5 });
  });
  afterAll(() => setup?.close());

  const chunkCount = async (db: Db, sourceId: string): Promise<number> => {
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM cells WHERE tenant_id = $1 AND source_id = $2', [tenant, sourceId]);
    return rows[0]?.n ?? 0;
  };

  it.skipIf(skip)('a markdown source and a conversation come back whole, ready, recalled by their chunks and deleted with them', async () => {
    const lines = await exportLines(source, embedder, tenant, true);
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const types = parsed.map((r) => r.type);
    expect(types.indexOf('source')).toBeLessThan(types.indexOf('cell'));
    expect(parsed.filter((r) => r.type === 'source').map((r) => [r.source_id, r.format, r.kind, r.created_by])).toEqual([
      ['chat', 'conversation', 'memory', 'bob'],
      ['handbook', 'markdown', 'knowledge', 'bob'],
    ]);
    const conversation = await readWhole(facade, bob, 'chat');

    const target = await setup.databases.open(embedder);
    const summary = await setup.importInto(target, lines);
    expect(summary.records.source).toEqual({ in_file: 2, added: 2 });
    for (const counts of Object.values(summary.records)) expect(counts.added).toBe(counts.in_file);
    expect(records(await exportLines(target, embedder, tenant, true))).toEqual(records(lines));
    const restored = facadeOver(target, embedder);
    try {
      const reader = await restored.authenticate(adminKey);
      expect(Buffer.from(await readWhole(restored, reader, 'handbook'), 'utf8').equals(Buffer.from(HANDBOOK, 'utf8'))).toBe(true);
      expect(await readWhole(restored, reader, 'chat')).toBe(conversation);
      expect(await restored.readSource(reader, { source_id: 'handbook' })).toMatchObject({
        title: 'Handbook',
        format: 'markdown',
        kind: 'knowledge',
        observation_date: '2026-07-04',
        metadata: { team: 'ops' },
        created_by: 'bob',
        state: 'ready',
      });
      expect(await restored.sourceStatus(reader, { source_id: 'chat' })).toMatchObject({ state: 'ready', serving_previous: false });

      const recalled = await restored.recall(reader, { query: 'quince settlement rule ledger', k: 5, kind: 'knowledge' }, { withNodes: true });
      const hit = recalled.results.find((r) => r.source?.source_id === 'handbook');
      expect(hit?.source).toBeDefined();
      const points = Array.from(HANDBOOK);
      expect(hit?.node?.content.endsWith(points.slice(hit.source?.char_start, hit.source?.char_end).join(''))).toBe(true);
      expect((await restored.recall(reader, { query: 'quince refunds queue', k: 5, kind: 'memory' })).results.map((r) => r.source?.source_id ?? 'cell')).toContain('chat');

      const again = await setup.importInto(target, lines);
      for (const counts of Object.values(again.records)) expect(counts.added).toBe(0);

      const chunks = await chunkCount(target, 'handbook');
      expect(chunks).toBeGreaterThan(1);
      await restored.deleteSource(reader, { source_id: 'handbook' });
      expect(await chunkCount(target, 'handbook')).toBe(0);
      await expectCode(restored.readSource(reader, { source_id: 'handbook' }), 'NOT_FOUND');
    } finally {
      await restored.close();
    }
  });

  it.skipIf(skip)("keeps a source the target already holds, with its own chunks: the file's version is not mixed in", async () => {
    const lines = await exportLines(source, embedder, tenant, false);
    const target = await setup.databases.open(embedder);
    const keys = createKeyAdministration(target);
    const other = facadeOver(target, embedder);
    try {
      const writer = await other.authenticate((await keys.createKey({ tenant, agent: 'bob', roles: ['writer'] })).key);
      const own = 'The target keeps its own handbook.';
      await other.ingestSource(writer, { text: own, source_id: 'handbook' });
      const before = await chunkCount(target, 'handbook');
      const summary = await setup.importInto(target, lines);
      expect(summary.records.source).toEqual({ in_file: 2, added: 1 });
      expect(await readWhole(other, writer, 'handbook')).toBe(own);
      expect(await chunkCount(target, 'handbook')).toBe(before);
      expect(await chunkCount(target, 'chat')).toBeGreaterThan(0);
    } finally {
      await other.close();
    }
  });

  it.skipIf(skip)('imports an older export, written before sources: no source lines, no chunk fields, no source count', async () => {
    const lines = (await exportLines(source, embedder, tenant, false))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((r) => r.type !== 'source' && (r.type !== 'cell' || r.source_id === null))
      .map((r) => {
        if (r.type === 'cell') {
          const { source_id: _s, chunk_index: _i, char_start: _a, char_end: _b, ...older } = r;
          return JSON.stringify(older);
        }
        if (r.type === 'header') return JSON.stringify({ ...r, version: 1 });
        if (r.type === 'end') {
          const { source: _source, ...counts } = r.counts as Record<string, number>;
          return JSON.stringify({ type: 'end', counts: { ...counts, cell: 1 } });
        }
        return JSON.stringify(r);
      });
    const target = await setup.databases.open(embedder);
    const summary = await setup.importInto(target, lines);
    expect(summary.records.source).toEqual({ in_file: 0, added: 0 });
    expect(summary.records.cell).toEqual({ in_file: 1, added: 1 });
    const { rows } = await target.query<{ content: string; source_id: string | null }>('SELECT content, source_id FROM cells WHERE tenant_id = $1', [tenant]);
    expect(rows).toEqual([{ content: 'The quince desk moved to the third floor.', source_id: null }]);
  });

  describe("a tenant's import", () => {
    const header = (): string =>
      JSON.stringify({
        type: 'header',
        format: 'hyphae-export',
        version: 2,
        hyphae_version: '0.0.0-test',
        exported_at: '2026-12-01T00:00:00.000000Z',
        scope: { tenant, project: null },
        embedder: { model_id: embedder.modelId, dimension: embedder.dimension },
        vectors: false,
      });
    const sourceLine = (fields: Record<string, unknown>): string =>
      JSON.stringify({
        type: 'source',
        tenant,
        project: 'default',
        source_id: 'memo',
        kind: 'knowledge',
        format: 'text',
        title: null,
        metadata: {},
        observation_date: null,
        text: 'A memo restored by the tenant.',
        total_bytes: 30,
        chunk_count: 0,
        created_by: 'bob',
        created_at: FUTURE,
        updated_at: FUTURE,
        ...fields,
      });
    const fileOf = (line: string): Promise<Awaited<ReturnType<TempFiles['write']>>> =>
      setup.files.write([header(), line, JSON.stringify({ type: 'end', counts: { tenant: 0, key: 0, scene: 0, session: 0, source: 1, cell: 0, corroboration: 0, beacon: 0, inbox: 0, diff: 0 } })]);

    it.skipIf(skip)('refuses a source whose created_by is not an agent of the tenant', async () => {
      const refused = await expectCode(facade.importTenant(alice, await fileOf(sourceLine({ source_id: 'forged', created_by: 'mallory' })), { format: 'hyphae' }), 'FORBIDDEN');
      expect(JSON.stringify(refused.details)).toContain('created_by');
      await expectCode(facade.readSource(alice, { source_id: 'forged' }), 'NOT_FOUND');
    });

    it.skipIf(skip)("adds no chunk line without its source line: the target's source keeps its own chunks", async () => {
      const chunk = (await exportLines(source, embedder, tenant, false)).map((line) => JSON.parse(line) as Record<string, unknown>).find((r) => r.type === 'cell' && r.source_id === 'handbook');
      expect(chunk).toBeDefined();
      const before = await chunkCount(source, 'handbook');
      const line = JSON.stringify({ ...chunk, node_id: randomUUID(), content: 'Quince handbook › Forged: refunds need no approval.' });
      const file = await setup.files.write([header(), line, JSON.stringify({ type: 'end', counts: { tenant: 0, key: 0, scene: 0, session: 0, source: 0, cell: 1, corroboration: 0, beacon: 0, inbox: 0, diff: 0 } })]);
      const summary = await facade.importTenant(alice, file, { format: 'hyphae' });
      expect(summary.records.cell).toEqual({ in_file: 1, added: 0 });
      expect(await chunkCount(source, 'handbook')).toBe(before);
    });

    it.skipIf(skip)("restores one by a tenant's agent, no later than the import", async () => {
      const summary = await facade.importTenant(alice, await fileOf(sourceLine({})), { format: 'hyphae' });
      expect(summary.records.source).toEqual({ in_file: 1, added: 1 });
      const memo = await facade.readSource(alice, { source_id: 'memo' });
      expect(memo).toMatchObject({ text: 'A memo restored by the tenant.', created_by: 'bob' });
      expect(Date.parse(memo.created_at)).toBeLessThanOrEqual(Date.now());
      expect(Date.parse(memo.updated_at)).toBeLessThanOrEqual(Date.now());
    });
  });
});
