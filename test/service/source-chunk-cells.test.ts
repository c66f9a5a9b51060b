/**
 * A source's chunk cells as GET /v1/sources/{id}/chunks reads them, on PGlite and, when installed,
 * native PostgreSQL: markdown keeps its heading paths and code blocks, every chunk fits MiniLM's
 * window by the real tokenizer, a replacement under concurrent chunk readers shows one version's
 * chunks per read, and a background ingestion embedding several batches at once reports
 * queued → indexing → ready with chunks_done only growing.
 */
import { readFileSync } from 'node:fs';
import { Tokenizer } from '@huggingface/tokenizers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import type { Principal } from '../../src/core/principal.js';
import type { Embedder } from '../../src/embed/embedder.js';
import { HashEmbedder } from '../../src/embed/hash-embedder.js';
import { defaultMiniLmModelDir } from '../../src/embed/minilm-model-files.js';
import { createMemoryFacade, type ManagedMemoryFacade, type MemoryFacadeDeps } from '../../src/service/index.js';
import type { Db } from '../../src/store/db.js';
import { freshTenant } from '../support/facade-expectations.js';
import { handbook } from '../support/source-fixtures.js';
import { waitFor } from '../support/wait-for.js';
import { onPgliteAndPostgres, type SuiteDatabase } from './pglite-and-postgres.js';

const tokenizer = new Tokenizer(JSON.parse(readFileSync(`${defaultMiniLmModelDir()}/tokenizer.json`, 'utf8')) as object, {});
const windowTokens = (text: string): number => tokenizer.encode(text, { add_special_tokens: true }).ids.length;

const CODE = ['```sql', 'SELECT account_id, sum(amount)', '', 'FROM postings', '', 'GROUP BY account_id;', '```'].join('\n');
const RUNBOOK = [
  '# Ledger runbook',
  '## Failover',
  'Promote the replica with the least lag. '.repeat(60).trim(),
  '### Checking balances',
  'Run the balance query after a failover:',
  CODE,
  '## Backlog',
  '- scale the settlement workers to at most 30 replicas',
  '- watch the retry queue',
  `${'Ünïcödé 🚀 and 漢字 in a long paragraph about the dead-letter queue. '.repeat(80).trim()}`,
].join('\n\n');

/** The real hash embedder, each call held a few milliseconds: batches overlap when several are in flight. */
const slowHash = (): Embedder => {
  const inner = new HashEmbedder();
  return { modelId: inner.modelId, dimension: inner.dimension, close: () => inner.close(), embed: async (texts) => (await new Promise((resolve) => setTimeout(resolve, 5)), inner.embed(texts)) };
};

function suite(name: string, open: () => Promise<SuiteDatabase>, skip = false): void {
  describe.skipIf(skip)(`source chunk cells [${name}]`, () => {
    let db: Db;
    let close: () => Promise<void>;
    const facades: ManagedMemoryFacade[] = [];
    const facade = (deps: Partial<MemoryFacadeDeps> = {}): ManagedMemoryFacade => {
      const built = createMemoryFacade({ db, embedder: new HashEmbedder(), authCacheTtlMs: 0, ...deps, config: { hitFlushIntervalMs: 3_600_000 } });
      facades.push(built);
      return built;
    };
    const writer = async (on: ManagedMemoryFacade): Promise<Principal> => on.authenticate((await createKeyAdministration(db).createKey({ tenant: freshTenant(), agent: 'writer', roles: ['writer'] })).key);

    beforeAll(async () => {
      ({ db, close } = await open());
    });
    afterAll(async () => {
      for (const built of facades) await built.close();
      await close?.();
    });

    it('markdown chunk cells keep their heading paths and code blocks whole, and each fits MiniLM’s window by its own tokenizer', async () => {
      const on = facade();
      const caller = await writer(on);
      const ingested = await on.ingestSource(caller, { text: RUNBOOK, format: 'markdown', title: 'Ledger runbook', source_id: 'runbook' });
      const page = await on.sourceChunks(caller, { source_id: 'runbook', limit: 200 });
      expect(page.chunks).toHaveLength(ingested.chunks_total);
      expect(page.next_cursor).toBeNull();
      const paths = new Set(page.chunks.map((chunk) => chunk.heading_path));
      expect([...paths]).toEqual(['Ledger runbook › Failover', 'Ledger runbook › Failover › Checking balances', 'Ledger runbook › Backlog']);
      const points = Array.from(RUNBOOK);
      const texts = page.chunks.map((chunk) => points.slice(chunk.char_start, chunk.char_end).join(''));
      expect(texts.filter((text) => text.includes(CODE))).toHaveLength(1);
      const { rows } = await db.query<{ node_id: string; content: string }>('SELECT node_id::text AS node_id, content FROM cells WHERE tenant_id = $1', [caller.tenantId]);
      const contentOf = new Map(rows.map((row) => [row.node_id, row.content]));
      page.chunks.forEach((chunk, i) => {
        const content = contentOf.get(chunk.node_id ?? '') ?? '';
        expect(content).toBe(`${chunk.heading_path}\n\n${texts[i] ?? ''}`);
        expect(windowTokens(content), `chunk ${chunk.chunk_index}`).toBeLessThanOrEqual(256);
      });
    });

    it('a replacement under concurrent chunk readers: each read shows the chunks of one version, never of two', async () => {
      const on = facade();
      const caller = await writer(on);
      const versions = { alpha: handbook('alpha', 5), omega: handbook('omega', 9) };
      await on.ingestSource(caller, { text: versions.alpha, format: 'markdown', source_id: 'doc' });
      let writing = true;
      const seen = new Set<string>();
      const reader = async (): Promise<void> => {
        while (writing) {
          const page = await on.sourceChunks(caller, { source_id: 'doc', limit: 200 });
          const titles = new Set(page.chunks.map((chunk) => chunk.heading_path.split(' › ')[0]));
          expect(titles.size).toBe(1);
          expect(page.chunks).toHaveLength(page.chunks_total);
          seen.add([...titles][0] ?? '');
        }
      };
      const readers = [reader(), reader()];
      for (let round = 0; round < 6; round += 1) await on.ingestSource(caller, { text: round % 2 === 0 ? versions.omega : versions.alpha, format: 'markdown', source_id: 'doc' });
      writing = false;
      await Promise.all(readers);
      expect(seen.size).toBeGreaterThan(0);
    });

    it('a background ingestion with batches in flight together goes queued → indexing → ready, chunks_done only growing', async () => {
      const on = facade({ embedder: slowHash(), sources: { syncChunks: 0, embedBatch: 2, embedConcurrency: 4, sweepMs: 3_600_000 } });
      const caller = await writer(on);
      const accepted = await on.ingestSource(caller, { text: handbook('kiwi', 20), format: 'markdown', source_id: 'kiwi' });
      const seen: { state: string; done: number }[] = [];
      await waitFor(async () => {
        const status = await on.sourceStatus(caller, { source_id: 'kiwi' });
        seen.push({ state: status.state, done: status.chunks_done });
        return status.state === 'ready' || status.state === 'failed';
      }, 2);
      const order = ['queued', 'indexing', 'ready'];
      const states = seen.map((status) => order.indexOf(status.state));
      expect(states.every((state) => state >= 0)).toBe(true);
      expect(states).toEqual([...states].sort((a, b) => a - b));
      const done = seen.map((status) => status.done);
      expect(done).toEqual([...done].sort((a, b) => a - b));
      expect(seen.at(-1)).toEqual({ state: 'ready', done: accepted.chunks_total });
    });
  });
}

onPgliteAndPostgres(suite);
