import { afterEach, describe, expect, it } from 'vitest';
import { syntheticCorpus } from '../../bench/corpus.js';
import type { Embedder } from '../../src/embed/embedder.js';
import { HashEmbedder } from '../../src/embed/hash-embedder.js';
import { MiniLmEmbedder } from '../../src/embed/minilm-embedder.js';
import { createMemoryFacade, type ManagedMemoryFacade } from '../../src/service/index.js';
import { reembedDatabase } from '../../src/service/reembed/reembed-database.js';
import type { Principal } from '../../src/core/principal.js';
import { migrate, readEmbeddingIdentity } from '../../src/store/migrator.js';
import { createTestRuntime, type TestRuntime } from '../support/test-runtime.js';
import { freshTenant } from '../support/facade-expectations.js';

// The memory and the question share no content word: feature hashing misses it, minilm finds it.
const MEMORY = 'Steps to recover a forgotten login credential: open the account page and request a reset link.';
const QUESTION = 'How do I reset my password?';

/** Counts the texts it embeds; fails its `failOnCall`-th call (1-based) to stand for a crash mid-run. */
class CountingEmbedder implements Embedder {
  texts = 0;
  private calls = 0;
  constructor(
    private readonly inner: Embedder,
    private readonly failOnCall = 0,
  ) {}
  get modelId(): string {
    return this.inner.modelId;
  }
  get dimension(): number {
    return this.inner.dimension;
  }
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.calls++;
    if (this.calls === this.failOnCall) throw new Error('embedder crashed');
    this.texts += texts.length;
    return this.inner.embed(texts);
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

describe('reembedDatabase', { timeout: 120_000 }, () => {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((o) => o.close()));
  });

  /** A hash-512 database with the paraphrase target and 40 other cells in tenant A, 10 cells in tenant B, and a beacon each. */
  async function seeded(): Promise<{ rt: TestRuntime; a: Principal; b: Principal; target: string }> {
    const rt = await createTestRuntime({ embedder: 'hash' });
    open.push(rt);
    const a = await rt.principal({ tenant: freshTenant('a'), agent: 'x' });
    const b = await rt.principal({ tenant: freshTenant('b'), agent: 'y' });
    const { node_id: target } = await rt.facade.store(a, { content: MEMORY, cell_type: 'Fact', salience: 0.5 });
    for (const content of syntheticCorpus(40, 11)) await rt.facade.store(a, { content, cell_type: 'Fact', salience: 0.5 });
    for (const content of syntheticCorpus(10, 12)) await rt.facade.store(b, { content, cell_type: 'Decision', salience: 0.5 });
    await rt.facade.placeBeacon(a, { text: 'password resets', include_own: false });
    await rt.facade.placeBeacon(b, { text: 'database choices', include_own: false });
    return { rt, a, b, target };
  }

  function facadeOver(rt: TestRuntime, embedder: Embedder): ManagedMemoryFacade {
    const facade = createMemoryFacade({ db: rt.db, embedder, config: { hitFlushIntervalMs: 3_600_000 } });
    open.push(facade);
    return facade;
  }

  it('moves hash-512 to minilm-384: every row re-embedded from its own text, columns and HNSW indexes rebuilt, identity recorded', async () => {
    const { rt, a, b, target } = await seeded();
    expect((await rt.facade.recall(a, { query: QUESTION, k: 5, mode: 'vector' })).results[0]?.node_id).not.toBe(target);
    const minilm = new CountingEmbedder(new MiniLmEmbedder());
    const outcome = await reembedDatabase(rt.db, minilm, { batchSize: 8 });
    expect(outcome).toMatchObject({ status: 'done', from: { modelId: 'hash-512-v1', dimension: 512 }, to: { modelId: 'all-minilm-l6-v2', dimension: 384 }, rows: 53, resumed: false });
    expect(minilm.texts).toBe(53);
    expect(await readEmbeddingIdentity(rt.db)).toEqual({ modelId: 'all-minilm-l6-v2', dimension: 384 });
    const columns = await rt.db.query<{ table_name: string; type: string }>(
      `SELECT c.relname AS table_name, format_type(a.atttypid, a.atttypmod) AS type FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
        WHERE c.relname IN ('cells', 'beacons') AND a.attname LIKE 'embedding%' AND NOT a.attisdropped ORDER BY 1`,
    );
    expect(columns.rows).toEqual([
      { table_name: 'beacons', type: 'vector(384)' },
      { table_name: 'cells', type: 'vector(384)' },
    ]);
    const indexes = await rt.db.query<{ indexname: string }>(
      "SELECT indexname FROM pg_indexes WHERE indexname IN ('cells_embedding', 'beacons_embedding') AND indexdef LIKE '%hnsw%' ORDER BY 1",
    );
    expect(indexes.rows.map((r) => r.indexname)).toEqual(['beacons_embedding', 'cells_embedding']);
    // Each stored vector is the new embedder's vector of that row's own text.
    const [expected] = await new MiniLmEmbedder().embed([MEMORY]);
    const stored = await rt.db.query<{ embedding: string }>('SELECT embedding::text AS embedding FROM cells WHERE node_id = $1', [target]);
    const vector = JSON.parse(stored.rows[0]?.embedding ?? '[]') as number[];
    expect(vector).toHaveLength(384);
    vector.forEach((x, i) => expect(x).toBeCloseTo(expected?.[i] ?? NaN, 5));

    const after = facadeOver(rt, new MiniLmEmbedder());
    expect((await after.recall(a, { query: QUESTION, k: 5, mode: 'vector' })).results[0]?.node_id).toBe(target);
    // Tenant-scoped as ever: B's recall sees only B's ten cells.
    expect((await after.recall(b, { query: QUESTION, k: 100 })).results).toHaveLength(10);
    await expect(migrate(rt.db, { modelId: 'hash-512-v1', dimension: 512 })).rejects.toThrow(/hyphae reembed/);
    expect(await reembedDatabase(rt.db, new MiniLmEmbedder())).toEqual({ status: 'already-current', identity: { modelId: 'all-minilm-l6-v2', dimension: 384 } });
  });

  it('stopped between batches, the database keeps serving its old vectors; the next run resumes, embedding only what is left and what arrived meanwhile', async () => {
    const { rt, a, target } = await seeded();
    const first = new CountingEmbedder(new HashEmbedder({ dimension: 256 }));
    let batches = 0;
    const stopped = await reembedDatabase(rt.db, first, { batchSize: 10, onProgress: () => batches++, shouldStop: () => batches >= 2 });
    expect(stopped).toEqual({ status: 'stopped', done: 20, total: 53 });
    expect(await readEmbeddingIdentity(rt.db)).toEqual({ modelId: 'hash-512-v1', dimension: 512 });
    const late = await rt.facade.store(a, { content: 'Stored while the re-embed was paused.', cell_type: 'Fact', salience: 0.5 });
    expect((await rt.facade.recall(a, { query: MEMORY, k: 1 })).results[0]?.node_id).toBe(target);

    const second = new CountingEmbedder(new HashEmbedder({ dimension: 256 }));
    const done = await reembedDatabase(rt.db, second, { batchSize: 10 });
    expect(done).toMatchObject({ status: 'done', resumed: true, rows: 54 });
    expect(second.texts).toBe(34);
    const after = facadeOver(rt, new HashEmbedder({ dimension: 256 }));
    expect((await after.recall(a, { query: 'Stored while the re-embed was paused.', k: 1 })).results[0]?.node_id).toBe(late.node_id);
  });

  it('after a crash mid-run, a rerun completes without redoing the committed batches; another target starts over', async () => {
    const { rt } = await seeded();
    await expect(reembedDatabase(rt.db, new CountingEmbedder(new HashEmbedder({ dimension: 256 }), 3), { batchSize: 10 })).rejects.toThrow('embedder crashed');
    expect(await readEmbeddingIdentity(rt.db)).toEqual({ modelId: 'hash-512-v1', dimension: 512 });
    // A different target abandons the 256-d shadow vectors and embeds everything again.
    const other = new CountingEmbedder(new HashEmbedder({ dimension: 128 }), 3);
    await expect(reembedDatabase(rt.db, other, { batchSize: 10 })).rejects.toThrow('embedder crashed');
    expect(other.texts).toBe(20);
    const rerun = new CountingEmbedder(new HashEmbedder({ dimension: 128 }));
    expect(await reembedDatabase(rt.db, rerun, { batchSize: 10 })).toMatchObject({ status: 'done', resumed: true, rows: 53 });
    expect(rerun.texts).toBe(33);
    expect(await readEmbeddingIdentity(rt.db)).toEqual({ modelId: 'hash-128-v1', dimension: 128 });
  });
});
