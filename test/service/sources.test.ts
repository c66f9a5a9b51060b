/**
 * Sources through the facade (docs/sources.md), on PGlite and, when installed, native PostgreSQL:
 * ingest, slices, replace under concurrent readers, overwrite: false, delete, tenancy, the size
 * limit, one diff per source, and background ingestion's states, takeover and failure.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import type { Principal } from '../../src/core/principal.js';
import { HashEmbedder } from '../../src/embed/hash-embedder.js';
import { createMemoryFacade, type ManagedMemoryFacade, type MemoryFacadeDeps } from '../../src/service/index.js';
import type { Db } from '../../src/store/db.js';
import { waitFor } from '../support/wait-for.js';
import { GatedEmbedder, handbook } from '../support/source-fixtures.js';
import { expectCode, freshTenant } from '../support/facade-expectations.js';
import { onPgliteAndPostgres, type SuiteDatabase } from './pglite-and-postgres.js';

interface Harness {
  readonly db: Db;
  facade(deps?: Partial<MemoryFacadeDeps>): ManagedMemoryFacade;
  principal(facade: ManagedMemoryFacade, tenant: string, agent: string, roles?: ('reader' | 'writer' | 'admin')[], projects?: string[]): Promise<Principal>;
}

function suite(name: string, open: () => Promise<SuiteDatabase>, skip = false): void {
  describe.skipIf(skip)(`sources through the facade [${name}]`, () => {
    let db: Db;
    let close: () => Promise<void>;
    const facades: ManagedMemoryFacade[] = [];
    const embedder = new HashEmbedder();
    let h: Harness;

    beforeAll(async () => {
      ({ db, close } = await open());
      const keys = createKeyAdministration(db);
      h = {
        db,
        facade(deps = {}) {
          const facade = createMemoryFacade({ db, embedder, authCacheTtlMs: 0, ...deps, config: { hitFlushIntervalMs: 3_600_000, ...deps.config } });
          facades.push(facade);
          return facade;
        },
        principal: async (facade, tenant, agent, roles = ['writer'], projects) =>
          facade.authenticate((await keys.createKey({ tenant, agent, roles, ...(projects === undefined ? {} : { projects }) })).key),
      };
    });
    afterAll(async () => {
      // Some cases close their facades themselves (a stopped process); closing again is harmless here.
      for (const facade of facades) await facade.close().catch(() => undefined);
      await close?.();
    });

    const count = async (sql: string, params: unknown[]): Promise<number> => Number((await db.query<{ n: number }>(sql, params)).rows[0]?.n ?? 0);

    it('ingests markdown searchable on return, and reads it back in slices that rebuild it exactly, multi-byte characters included', async () => {
      const facade = h.facade();
      const writer = await h.principal(facade, freshTenant(), 'writer');
      const text = `${handbook('kiwi', 6)}\n\n## Emoji 👍🏽 and 漢字\n\n${'Ünïcödé 🚀 text with 😀 pairs. '.repeat(400)}`;
      const ingested = await facade.ingestSource(writer, { text, format: 'markdown', title: 'Handbook', source_id: 'handbook', observation_date: '2026-07-04', metadata: { team: 'ops' } });
      expect(ingested).toMatchObject({ source_id: 'handbook', state: 'ready', kind: 'knowledge', chunks_total: ingested.chunks_done });
      const recalled = await facade.recall(writer, { query: 'kiwi settlement rule', k: 5 }, { withNodes: true });
      expect(recalled.results.length).toBeGreaterThan(0);
      expect(recalled.results[0]?.node?.content.startsWith('Handbook › ')).toBe(true);

      const slices: string[] = [];
      let offset: number | null = 0;
      while (offset !== null) {
        const slice = await facade.readSource(writer, { source_id: 'handbook', offset, limit: 997 });
        expect(slice.total_chars).toBe(Array.from(text).length);
        slices.push(slice.text);
        offset = slice.next_offset;
      }
      expect(slices.length).toBeGreaterThan(5);
      expect(Buffer.from(slices.join(''), 'utf8').equals(Buffer.from(text, 'utf8'))).toBe(true);
      const whole = await facade.readSource(writer, { source_id: 'handbook', limit: 20_000 });
      expect(whole).toMatchObject({ title: 'Handbook', format: 'markdown', observation_date: '2026-07-04', metadata: { team: 'ops' }, created_by: 'writer', state: 'ready' });

      // Each chunk's character range points at its text in the source (code points).
      const { rows } = await db.query<{ content: string; char_start: number; char_end: number }>(
        'SELECT content, char_start, char_end FROM cells WHERE tenant_id = $1 AND source_id = $2 ORDER BY chunk_index',
        [writer.tenantId, 'handbook'],
      );
      const points = Array.from(text);
      for (const row of rows) expect(row.content.endsWith(points.slice(row.char_start, row.char_end).join(''))).toBe(true);
    });

    it('recall names a chunk’s source and range, and its kind keeps to knowledge, memory or both', async () => {
      const facade = h.facade();
      const writer = await h.principal(facade, freshTenant(), 'writer');
      const text = `# Pumps\n\n## Valves\n\nThe 🚰 pressure valve of pump seven opens at four bar.`;
      await facade.ingestSource(writer, { text, format: 'markdown', title: 'Pumps', source_id: 'pumps', overwrite: true });
      await facade.ingestSource(writer, { turns: [{ user: 'When does the pressure valve of pump seven open?', assistant: 'At four bar.' }], source_id: 'chat', overwrite: true });
      const cell = await facade.store(writer, { content: 'The pressure valve of pump seven was replaced in May.', cell_type: 'Fact', salience: 0.5 });
      const query = 'pressure valve of pump seven';
      const every = await facade.recall(writer, { query, k: 10 }, { withNodes: true });
      expect(every.results).toHaveLength(3);
      const doc = every.results.find((hit) => hit.source?.source_id === 'pumps');
      expect(doc?.source).toMatchObject({ chunk_index: 0 });
      const points = Array.from(text);
      expect(doc?.node?.content.endsWith(points.slice(doc.source?.char_start, doc.source?.char_end).join(''))).toBe(true);
      expect(every.results.find((hit) => hit.node_id === cell.node_id)?.source).toBeUndefined();
      const ids = async (kind: 'memory' | 'knowledge' | 'all'): Promise<string[]> =>
        (await facade.recall(writer, { query, k: 10, kind })).results.map((hit) => hit.source?.source_id ?? 'cell').sort();
      expect(await ids('knowledge')).toEqual(['pumps']);
      expect(await ids('memory')).toEqual(['cell', 'chat']);
      expect(await ids('all')).toEqual(['cell', 'chat', 'pumps']);
      expect(await facade.recall(writer, { query, k: 10, kind: 'knowledge', mode: 'lexical' }).then((r) => r.results.map((hit) => hit.source?.source_id))).toEqual(['pumps']);
    });

    it('num_related_chunks attaches the ids of the adjacent chunks of the same source to a chunk hit', async () => {
      const facade = h.facade();
      const writer = await h.principal(facade, freshTenant(), 'writer');
      const ingested = await facade.ingestSource(writer, { text: handbook('quince', 8), format: 'markdown', source_id: 'quince', overwrite: true });
      const { rows } = await db.query<{ id: string }>('SELECT node_id::text AS id FROM cells WHERE tenant_id = $1 ORDER BY chunk_index', [writer.tenantId]);
      expect(rows).toHaveLength(ingested.chunks_total);
      const order = rows.map((row) => row.id);
      const found = await facade.recall(writer, { query: 'quince settlement rule 4.3', k: 3, num_related_chunks: 2 });
      expect(found.results.length).toBeGreaterThan(0);
      for (const hit of found.results) {
        const at = order.indexOf(hit.node_id);
        expect(hit.related_chunks).toEqual(order.filter((_, i) => i !== at && Math.abs(i - at) <= 2));
      }
      expect((await facade.recall(writer, { query: 'quince', k: 1 })).results[0]?.related_chunks).toBeUndefined();
      await expectCode(facade.recall(writer, { query: 'quince', k: 1, num_related_chunks: 6 }), 'INVALID_ARGUMENT');
    });

    it('refuses both or neither of text and turns, and chunks a conversation by turns as memory', async () => {
      const facade = h.facade();
      const writer = await h.principal(facade, freshTenant(), 'writer');
      await expectCode(facade.ingestSource(writer, { overwrite: true }), 'INVALID_ARGUMENT');
      await expectCode(facade.ingestSource(writer, { text: 'a', turns: [{ user: 'q', assistant: 'a' }], overwrite: true }), 'INVALID_ARGUMENT');
      const chat = await facade.ingestSource(writer, { turns: [{ user: 'Where do refunds go?', assistant: 'To the refunds queue.' }], user_name: 'Ana', overwrite: true });
      expect(chat).toMatchObject({ kind: 'memory', state: 'ready', chunks_total: 1 });
      expect((await facade.readSource(writer, { source_id: chat.source_id })).text).toBe('Ana: Where do refunds go?\nAssistant: To the refunds queue.');
      const page = await facade.listSources(writer, { kind: 'memory', limit: 20 });
      expect(page.sources.map((s) => s.source_id)).toEqual([chat.source_id]);
      expect((await facade.listSources(writer, { kind: 'knowledge', limit: 20 })).sources).toEqual([]);
    });

    it('a writer scoped to p1 ingesting into p2 is FORBIDDEN before its text is chunked, and nothing is written', async () => {
      const facade = h.facade();
      const writer = await h.principal(facade, freshTenant(), 'writer', ['writer'], ['p1']);
      await expectCode(facade.ingestSource(writer, { text: 'The p2 runbook.', project: 'p2', source_id: 'memo', overwrite: true }), 'FORBIDDEN');
      // Only whitespace is refused by chunking (INVALID_ARGUMENT): FORBIDDEN here means the scope was checked first.
      await expectCode(facade.ingestSource(writer, { text: ' \n\n ', project: 'p2', overwrite: true }), 'FORBIDDEN');
      await expectCode(facade.ingestSource(writer, { text: ' \n\n ', project: 'p1', overwrite: true }), 'INVALID_ARGUMENT');
      expect(await count('SELECT count(*)::int AS n FROM source_ingestions WHERE tenant_id = $1', [writer.tenantId])).toBe(0);
    });

    it('an offset past the end reads an empty slice, up to 2^31 − 2; a larger one is INVALID_ARGUMENT, never a server error', async () => {
      const facade = h.facade();
      const writer = await h.principal(facade, freshTenant(), 'writer');
      await facade.ingestSource(writer, { text: 'a short note', source_id: 'note', overwrite: true });
      expect(await facade.readSource(writer, { source_id: 'note', offset: 2 ** 31 - 2 })).toMatchObject({ text: '', offset: 2 ** 31 - 2, next_offset: null });
      await expectCode(facade.readSource(writer, { source_id: 'note', offset: 2 ** 31 - 1 }), 'INVALID_ARGUMENT');
    });

    it('overwrite: false on an existing source_id is a CONFLICT and changes nothing', async () => {
      const facade = h.facade();
      const writer = await h.principal(facade, freshTenant(), 'writer');
      await facade.ingestSource(writer, { text: 'first version', source_id: 'memo', overwrite: true });
      await expectCode(facade.ingestSource(writer, { text: 'second version', source_id: 'memo', overwrite: false }), 'CONFLICT');
      expect((await facade.readSource(writer, { source_id: 'memo' })).text).toBe('first version');
      await facade.ingestSource(writer, { text: 'second version', source_id: 'memo', overwrite: true });
      expect((await facade.readSource(writer, { source_id: 'memo' })).text).toBe('second version');
      expect(await count('SELECT count(*)::int AS n FROM cells WHERE tenant_id = $1 AND source_id = $2', [writer.tenantId, 'memo'])).toBe(1);
    });

    it('a replacement is atomic: concurrent readers see the chunks of one version, never of two', async () => {
      const facade = h.facade();
      const writer = await h.principal(facade, freshTenant(), 'writer');
      const versions = { alpha: handbook('alpha', 5), omega: handbook('omega', 9) };
      await facade.ingestSource(writer, { text: versions.alpha, format: 'markdown', source_id: 'doc', overwrite: true });
      const sizes = new Map<string, number>();
      let writing = true;
      const seen = new Set<string>();
      const reader = async (): Promise<void> => {
        while (writing) {
          const page = await facade.listCells(writer, { limit: 200 });
          const markers = new Set(page.items.map((cell) => (cell.content.includes('alpha') ? 'alpha' : 'omega')));
          expect(markers.size).toBe(1);
          const [marker] = [...markers] as [string];
          seen.add(marker);
          if (sizes.has(marker)) expect(page.items).toHaveLength(sizes.get(marker) as number);
        }
      };
      const readers = [reader(), reader(), reader()];
      for (let round = 0; round < 6; round += 1) {
        const marker = round % 2 === 0 ? 'omega' : 'alpha';
        const ingested = await facade.ingestSource(writer, { text: versions[marker], format: 'markdown', source_id: 'doc', overwrite: true });
        sizes.set(marker, ingested.chunks_total);
      }
      writing = false;
      await Promise.all(readers);
      expect(sizes.get('alpha')).not.toBe(sizes.get('omega'));
      expect(seen.size).toBeGreaterThan(0);
    });

    it('deleting a source leaves no chunk, term or diff text behind: its diff stays a tombstone and the beacon owner hears deleted', async () => {
      const facade = h.facade();
      const tenant = freshTenant();
      const writer = await h.principal(facade, tenant, 'writer');
      const watcher = await h.principal(facade, tenant, 'watcher', ['reader']);
      await facade.placeBeacon(watcher, { text: 'settlement rule keeps ledgers balanced', threshold: 0.2, include_own: false });
      const ingested = await facade.ingestSource(writer, { text: handbook('kiwi', 8), format: 'markdown', title: 'Kiwi handbook', source_id: 'kiwi', overwrite: true });
      expect(ingested.chunks_total).toBeGreaterThan(4);
      const peek = await facade.peekInbox(watcher, { limit: 50 });
      expect(peek.diffs).toHaveLength(1);
      expect(peek.diffs[0]).toMatchObject({ op: 'created', preview: 'Kiwi handbook' });

      const chunkIds = (await db.query<{ id: string }>('SELECT node_id::text AS id FROM cells WHERE tenant_id = $1 AND source_id = $2', [tenant, 'kiwi'])).rows.map((r) => r.id);
      expect(chunkIds).toHaveLength(ingested.chunks_total);
      expect(await count('SELECT count(*)::int AS n FROM cell_tenant_terms WHERE node_id = ANY($1::uuid[])', [chunkIds])).toBe(chunkIds.length);
      await facade.deleteSource(writer, { source_id: 'kiwi' });
      expect(await count('SELECT count(*)::int AS n FROM cells WHERE node_id = ANY($1::uuid[])', [chunkIds])).toBe(0);
      expect(await count('SELECT count(*)::int AS n FROM cell_tenant_terms WHERE node_id = ANY($1::uuid[])', [chunkIds])).toBe(0);
      const diffs = await db.query<{ op: string; preview: string }>('SELECT op, preview FROM diffs WHERE tenant_id = $1 ORDER BY seq', [tenant]);
      expect(diffs.rows).toEqual([
        { op: 'created', preview: '' },
        { op: 'deleted', preview: '' },
      ]);
      expect(await count('SELECT count(*)::int AS n FROM sources WHERE tenant_id = $1', [tenant])).toBe(0);
      await expectCode(facade.readSource(writer, { source_id: 'kiwi' }), 'NOT_FOUND');
      await expectCode(facade.deleteSource(writer, { source_id: 'kiwi' }), 'NOT_FOUND');
    });

    it('an admin purge of a project erases its sources with their chunks, pending ingestions included', async () => {
      const facade = h.facade({ sources: { syncChunks: 1, sweepMs: 3_600_000 } });
      const tenant = freshTenant();
      const writer = await h.principal(facade, tenant, 'writer');
      const admin = await h.principal(facade, tenant, 'root', ['admin']);
      await facade.ingestSource(writer, { text: 'a short note', source_id: 'note', overwrite: true });
      const pending = new GatedEmbedder(embedder);
      pending.hold();
      const held = h.facade({ embedder: pending, sources: { syncChunks: 1, sweepMs: 3_600_000 } });
      await held.ingestSource(writer, { text: handbook('plum', 4), format: 'markdown', source_id: 'pending', overwrite: true });
      await facade.purgeProject(admin, { project: writer.defaultProject });
      pending.release();
      await held.close();
      await expectCode(facade.readSource(writer, { source_id: 'note' }), 'NOT_FOUND');
      await expectCode(facade.sourceStatus(writer, { source_id: 'pending' }), 'NOT_FOUND');
      for (const table of ['sources', 'source_ingestions', 'cells']) {
        expect(await count(`SELECT count(*)::int AS n FROM ${table} WHERE tenant_id = $1`, [tenant])).toBe(0);
      }
    });

    it('another tenant’s source_id reads as not found, and that tenant reuses the id without touching the first', async () => {
      const facade = h.facade();
      const a = await h.principal(facade, freshTenant('a'), 'writer');
      const b = await h.principal(facade, freshTenant('b'), 'writer');
      await facade.ingestSource(a, { text: 'tenant a owns this text', source_id: 'shared-id', overwrite: false });
      await expectCode(facade.readSource(b, { source_id: 'shared-id' }), 'NOT_FOUND');
      await expectCode(facade.sourceStatus(b, { source_id: 'shared-id' }), 'NOT_FOUND');
      await expectCode(facade.deleteSource(b, { source_id: 'shared-id' }), 'NOT_FOUND');
      await facade.ingestSource(b, { text: 'tenant b has its own', source_id: 'shared-id', overwrite: false });
      expect((await facade.readSource(a, { source_id: 'shared-id' })).text).toBe('tenant a owns this text');
      expect((await facade.readSource(b, { source_id: 'shared-id' })).text).toBe('tenant b has its own');
      await facade.deleteSource(b, { source_id: 'shared-id' });
      expect((await facade.sourceStatus(a, { source_id: 'shared-id' })).state).toBe('ready');
    });

    it('refuses a source of 10 MiB + 1 byte with TOO_LARGE and writes nothing', async () => {
      const facade = h.facade();
      const writer = await h.principal(facade, freshTenant(), 'writer');
      const text = `${'x'.repeat(10 * 1024 * 1024 - 3)}👍`;
      expect(Buffer.byteLength(text, 'utf8')).toBe(10 * 1024 * 1024 + 1);
      const error = await expectCode(facade.ingestSource(writer, { text, source_id: 'big', overwrite: true }), 'TOO_LARGE');
      expect(error.details).toMatchObject({ limit_bytes: 10 * 1024 * 1024, actual_bytes: 10 * 1024 * 1024 + 1 });
      for (const table of ['sources', 'source_ingestions', 'cells']) {
        expect(await count(`SELECT count(*)::int AS n FROM ${table} WHERE tenant_id = $1`, [writer.tenantId])).toBe(0);
      }
    });

    it('a large source goes queued → indexing (chunks done of total) → ready, its previous version served meanwhile', async () => {
      const gated = new GatedEmbedder(embedder);
      const facade = h.facade({ embedder: gated, sources: { syncChunks: 2, embedBatch: 2, sweepMs: 3_600_000 } });
      const writer = await h.principal(facade, freshTenant(), 'writer');
      await facade.ingestSource(writer, { text: 'the old version', source_id: 'manual', overwrite: true });
      gated.hold();
      const accepted = await facade.ingestSource(writer, { text: handbook('kiwi', 6), format: 'markdown', source_id: 'manual', overwrite: true });
      expect(accepted).toMatchObject({ state: 'queued', chunks_done: 0 });
      await waitFor(async () => (await facade.sourceStatus(writer, { source_id: 'manual' })).state === 'indexing');
      const indexing = await facade.sourceStatus(writer, { source_id: 'manual' });
      expect(indexing).toMatchObject({ state: 'indexing', chunks_done: 0, chunks_total: accepted.chunks_total, serving_previous: true });
      expect((await facade.readSource(writer, { source_id: 'manual' })).text).toBe('the old version');
      const pendingChunks = await facade.sourceChunks(writer, { source_id: 'manual', version: 'pending', limit: 200 });
      expect(pendingChunks).toMatchObject({ version: 'pending', state: 'indexing', chunks_total: accepted.chunks_total });
      expect(pendingChunks.chunks.map((chunk) => [chunk.status, chunk.node_id])).toEqual(Array.from({ length: accepted.chunks_total }, () => ['waiting', null]));
      expect(pendingChunks.chunks[1]?.heading_path).toMatch(/^Handbook kiwi › /);
      expect(await facade.sourceChunks(writer, { source_id: 'manual' })).toMatchObject({ version: 'served', state: 'ready', chunks_total: 1 });
      gated.release();
      await waitFor(async () => (await facade.sourceStatus(writer, { source_id: 'manual' })).state === 'ready');
      expect((await facade.readSource(writer, { source_id: 'manual' })).text.startsWith('# Handbook kiwi')).toBe(true);
      expect(await count('SELECT count(*)::int AS n FROM cells WHERE tenant_id = $1 AND source_id = $2', [writer.tenantId, 'manual'])).toBe(accepted.chunks_total);
      expect(await count('SELECT count(*)::int AS n FROM source_chunk_drafts', [])).toBe(0);
    });

    it('an ingestion whose process stopped is taken over when its lease expires, or failed once its attempts are spent — never indexing forever', async () => {
      const stuck = new GatedEmbedder(embedder);
      stuck.hold();
      const first = h.facade({ embedder: stuck, sources: { syncChunks: 0, embedBatch: 4, sweepMs: 3_600_000, leaseMs: 60_000 } });
      const tenant = freshTenant();
      const writer = await h.principal(first, tenant, 'writer');
      const accepted = await first.ingestSource(writer, { text: handbook('fig', 4), format: 'markdown', source_id: 'resumed', overwrite: true });
      await waitFor(() => stuck.calls > 0);
      expect((await first.sourceStatus(writer, { source_id: 'resumed' })).state).toBe('indexing');

      // Another process, two minutes later: the first one's lease has expired, as if its pod was lost.
      const later = (): Date => new Date(Date.now() + 120_000);
      const second = h.facade({ clock: later, sources: { sweepMs: 20, leaseMs: 60_000 } });
      await waitFor(async () => (await second.sourceStatus(writer, { source_id: 'resumed' })).state === 'ready');
      expect(await count('SELECT count(*)::int AS n FROM cells WHERE tenant_id = $1 AND source_id = $2', [tenant, 'resumed'])).toBe(accepted.chunks_total);
      stuck.release();
      await second.close();

      // Spent attempts: the next claim marks it failed, with the reason.
      stuck.hold();
      const third = h.facade({ embedder: stuck, sources: { syncChunks: 0, sweepMs: 3_600_000 } });
      await third.ingestSource(writer, { text: handbook('pear', 4), format: 'markdown', source_id: 'abandoned', overwrite: true });
      await waitFor(() => stuck.calls > 1);
      const fourth = h.facade({ clock: later, sources: { sweepMs: 20, maxAttempts: 1 } });
      await waitFor(async () => (await fourth.sourceStatus(writer, { source_id: 'abandoned' })).state === 'failed');
      expect((await fourth.sourceStatus(writer, { source_id: 'abandoned' })).failure).toMatch(/abandoned after 1 attempts/);
      stuck.release();
    });
  });
}

onPgliteAndPostgres(suite);

