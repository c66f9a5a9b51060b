/**
 * What a tenant may queue of sources (docs/sources.md, "Limits"), on PGlite and, when installed,
 * native PostgreSQL: the cell quota with pending chunks reserved, the pending count and bytes per
 * tenant, failed ingestions keeping no body, and due ingestions taken round-robin across tenants.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import { RateLimitedError } from '../../src/core/errors.js';
import type { Principal } from '../../src/core/principal.js';
import { HashEmbedder } from '../../src/embed/hash-embedder.js';
import { chunkSource } from '../../src/knowledge/index.js';
import { createMemoryFacade, type ManagedMemoryFacade, type MemoryFacadeDeps } from '../../src/service/index.js';
import type { Db } from '../../src/store/db.js';
import { dueIngestions } from '../../src/store/source-ingestion-repository.js';
import { insertIngestion } from '../../src/store/source-repository.js';
import { waitFor } from '../support/wait-for.js';
import { GatedEmbedder, handbook } from '../support/source-fixtures.js';
import { expectCode, freshTenant } from '../support/facade-expectations.js';
import { onPgliteAndPostgres, type SuiteDatabase } from './pglite-and-postgres.js';

function suite(name: string, open: () => Promise<SuiteDatabase>, skip = false): void {
  describe.skipIf(skip)(`source limits [${name}]`, () => {
    let db: Db;
    let close: () => Promise<void>;
    const facades: ManagedMemoryFacade[] = [];
    const gates: GatedEmbedder[] = [];
    const embedder = new HashEmbedder();
    let principal: (facade: ManagedMemoryFacade, tenant: string) => Promise<Principal>;

    /** A facade whose background ingestions wait (held) or fail, and that never sweeps. */
    const facade = (deps: Partial<MemoryFacadeDeps> & { failing?: boolean } = {}): { facade: ManagedMemoryFacade; gate: GatedEmbedder } => {
      const gate = new GatedEmbedder(embedder, deps.failing === true);
      if (deps.failing !== true) gate.hold();
      gates.push(gate);
      const made = createMemoryFacade({
        db,
        embedder: gate,
        authCacheTtlMs: 0,
        ...deps,
        sources: { syncChunks: 0, sweepMs: 3_600_000, ...deps.sources },
        config: { hitFlushIntervalMs: 3_600_000, ...deps.config },
      });
      facades.push(made);
      return { facade: made, gate };
    };
    const count = async (sql: string, params: unknown[]): Promise<number> => Number((await db.query<{ n: number }>(sql, params)).rows[0]?.n ?? 0);

    beforeAll(async () => {
      ({ db, close } = await open());
      const keys = createKeyAdministration(db);
      principal = async (f, tenant) => f.authenticate((await keys.createKey({ tenant, agent: 'writer', roles: ['writer'] })).key);
    });
    afterAll(async () => {
      for (const gate of gates) gate.release();
      for (const f of facades) await f.close().catch(() => undefined);
      await close?.();
    });

    it('refuses a source whose chunks pass the cell quota with pending chunks reserved (CONFLICT naming the setting), writing nothing', async () => {
      const doc = handbook('kiwi', 4);
      const chunks = chunkSource(doc, 'markdown', undefined).length;
      const limit = 2 * chunks + 1;
      const { facade: f } = facade({ config: { maxCellsPerTenant: limit } });
      const writer = await principal(f, freshTenant());
      expect(await f.ingestSource(writer, { text: doc, format: 'markdown', source_id: 'one', overwrite: true })).toMatchObject({ state: 'queued', chunks_total: chunks });
      await f.ingestSource(writer, { text: doc, format: 'markdown', source_id: 'two', overwrite: true });
      // Two pending ingestions reserve 2 × chunks of the limit: one more has room for 1 cell.
      const refused = await expectCode(f.ingestSource(writer, { text: doc, format: 'markdown', source_id: 'three', overwrite: true }), 'CONFLICT');
      expect(refused.message).toMatch(/HYPHAE_MAX_CELLS_PER_TENANT/);
      expect(refused.details).toMatchObject({ quota: 'cells_per_tenant', limit, chunks, room: 1 });
      expect(await count('SELECT count(*)::int AS n FROM source_ingestions WHERE tenant_id = $1 AND source_id = $2', [writer.tenantId, 'three'])).toBe(0);
      // Replacing a pending source frees its own reservation.
      expect((await f.ingestSource(writer, { text: doc, format: 'markdown', source_id: 'two', overwrite: true })).state).toBe('queued');
      // A one-chunk source takes the last cell of room; the next one has none.
      expect((await f.ingestSource(writer, { text: 'a short note', source_id: 'note', overwrite: true })).state).toBe('queued');
      const full = await expectCode(f.ingestSource(writer, { text: 'another note', source_id: 'note-2', overwrite: true }), 'CONFLICT');
      expect(full.details).toMatchObject({ quota: 'cells_per_tenant', chunks: 1, room: 0 });
    });

    it('caps a tenant’s pending ingestions by count: one more is RATE_LIMITED with Retry-After; a replacement and another tenant still go', async () => {
      const { facade: f } = facade({ sources: { pendingMax: 2 } });
      const writer = await principal(f, freshTenant());
      const doc = handbook('fig', 2);
      await f.ingestSource(writer, { text: doc, format: 'markdown', source_id: 'a', overwrite: true });
      await f.ingestSource(writer, { text: doc, format: 'markdown', source_id: 'b', overwrite: true });
      const refused = await expectCode(f.ingestSource(writer, { text: doc, format: 'markdown', source_id: 'c', overwrite: true }), 'RATE_LIMITED');
      expect(refused).toBeInstanceOf(RateLimitedError);
      expect((refused as RateLimitedError).retryAfterSeconds).toBe(60);
      expect(refused.details).toMatchObject({ limit: 'source_pending_per_tenant', limit_count: 2 });
      expect(refused.message).toMatch(/HYPHAE_SOURCE_PENDING_MAX/);
      expect(await count('SELECT count(*)::int AS n FROM source_ingestions WHERE tenant_id = $1', [writer.tenantId])).toBe(2);
      expect((await f.ingestSource(writer, { text: doc, format: 'markdown', source_id: 'a', overwrite: true })).state).toBe('queued');
      const other = await principal(f, freshTenant());
      expect((await f.ingestSource(other, { text: doc, format: 'markdown', source_id: 'c', overwrite: true })).state).toBe('queued');
    });

    it('caps a tenant’s pending ingestions by bytes: one that would pass them is RATE_LIMITED, nothing written', async () => {
      const doc = handbook('pear', 3);
      const bytes = Buffer.byteLength(doc, 'utf8');
      const { facade: f } = facade({ sources: { pendingMaxBytes: Math.floor(bytes * 1.5) } });
      const writer = await principal(f, freshTenant());
      await f.ingestSource(writer, { text: doc, format: 'markdown', source_id: 'a', overwrite: true });
      const refused = await expectCode(f.ingestSource(writer, { text: doc, format: 'markdown', source_id: 'b', overwrite: true }), 'RATE_LIMITED');
      expect(refused.details).toMatchObject({ limit: 'source_pending_bytes_per_tenant', limit_bytes: Math.floor(bytes * 1.5) });
      expect(refused.message).toMatch(/HYPHAE_SOURCE_PENDING_MAX_BYTES/);
      expect(await count('SELECT count(*)::int AS n FROM source_ingestions WHERE tenant_id = $1', [writer.tenantId])).toBe(1);
    });

    it('a failed ingestion keeps its fields and reason but not its text or chunk drafts', async () => {
      const { facade: f } = facade({ failing: true });
      const writer = await principal(f, freshTenant());
      await f.ingestSource(writer, { text: handbook('plum', 3), format: 'markdown', title: 'Plums', source_id: 'plum', overwrite: true });
      await waitFor(async () => (await f.sourceStatus(writer, { source_id: 'plum' })).state === 'failed');
      expect((await f.sourceStatus(writer, { source_id: 'plum' })).failure).toMatch(/UNAVAILABLE: the embedder is down/);
      const { rows } = await db.query<{ body: string; id: string }>('SELECT body, ingestion_id::text AS id FROM source_ingestions WHERE tenant_id = $1', [writer.tenantId]);
      expect(rows.map((row) => row.body)).toEqual(['']);
      expect(await count('SELECT count(*)::int AS n FROM source_chunk_drafts WHERE ingestion_id = $1', [rows[0]?.id])).toBe(0);
      expect(await f.readSource(writer, { source_id: 'plum' })).toMatchObject({ state: 'failed', title: 'Plums', text: '', next_offset: null });
    });

    it('a tenant filled up while its ingestion waited: the swap fails on the cell quota and drops the body', async () => {
      const doc = handbook('lime', 3);
      const chunks = chunkSource(doc, 'markdown', undefined).length;
      const { facade: f, gate } = facade({ config: { maxCellsPerTenant: chunks + 2 } });
      const writer = await principal(f, freshTenant());
      await f.ingestSource(writer, { text: doc, format: 'markdown', source_id: 'lime', overwrite: true });
      // Stores through another process, whose embedder is not held.
      const plain = createMemoryFacade({ db, embedder, authCacheTtlMs: 0, config: { maxCellsPerTenant: chunks + 2, hitFlushIntervalMs: 3_600_000 } });
      facades.push(plain);
      for (let i = 0; i < 3; i += 1) await plain.store(writer, { content: `plain cell ${i}`, cell_type: 'Fact', salience: 0.5 });
      gate.release();
      await waitFor(async () => (await f.sourceStatus(writer, { source_id: 'lime' })).state === 'failed');
      expect((await f.sourceStatus(writer, { source_id: 'lime' })).failure).toMatch(/^CONFLICT: .*HYPHAE_MAX_CELLS_PER_TENANT/);
      expect(await count('SELECT count(*)::int AS n FROM cells WHERE tenant_id = $1', [writer.tenantId])).toBe(3);
      expect(await count("SELECT count(*)::int AS n FROM source_ingestions WHERE tenant_id = $1 AND body = ''", [writer.tenantId])).toBe(1);
    });

    it('due ingestions are taken round-robin across tenants: one tenant’s backlog does not starve another’s', async () => {
      const [busy, quiet] = [freshTenant('busy'), freshTenant('quiet')];
      const start = Date.parse('2026-01-01T00:00:00Z');
      const ids: Record<string, string> = {};
      const queue = async (tenant: string, sourceId: string, minute: number): Promise<void> => {
        const ingestionId = crypto.randomUUID();
        ids[`${tenant}/${sourceId}`] = ingestionId;
        await db.transaction((tx) =>
          insertIngestion(
            tx,
            {
              ingestionId,
              key: { tenantId: tenant, project: 'default', sourceId },
              kind: 'knowledge',
              format: 'text',
              title: null,
              metadata: {},
              observationDate: null,
              body: 'queued text',
              totalChars: 11,
              totalBytes: 11,
              createdBy: 'writer',
              trust: 0.5,
              state: 'queued',
              now: new Date(start + minute * 60_000),
            },
            [{ index: 0, content: 'queued text', start: 0, end: 11, identifiers: [], embedding: null }],
          ),
        );
      };
      for (let i = 0; i < 5; i += 1) await queue(busy, `doc-${i}`, i);
      await queue(quiet, 'doc', 10);
      const mine = new Set(Object.values(ids));
      const due = (await dueIngestions(db, new Date(start + 3_600_000), 10_000)).filter((id) => mine.has(id));
      expect(due).toHaveLength(6);
      // The quiet tenant's only ingestion comes right after the busy tenant's oldest, not after all five.
      expect(due.slice(0, 2).sort()).toEqual([ids[`${busy}/doc-0`], ids[`${quiet}/doc`]].sort());
      expect(due.slice(2)).toEqual([1, 2, 3, 4].map((i) => ids[`${busy}/doc-${i}`]));
    });
  });
}

onPgliteAndPostgres(suite);
