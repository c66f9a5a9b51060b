/**
 * Source ingestion embedded on the mesh's embedding workers (docs/sources.md, "Embedding on the
 * mesh's workers"), with a real nats-server and real PGlite: the chunks of a background ingestion
 * go to the workers' queue group in batches, several in flight, so two workers share them; status
 * moves queued → indexing (chunks_done only growing) → ready; a worker killed mid-ingestion costs a
 * retry, not the ingestion; with no worker left the ingestion ends failed, never indexing.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import type { SourceStatus } from '../../src/core/source-schemas.js';
import type { Principal } from '../../src/core/principal.js';
import type { Embedder } from '../../src/embed/embedder.js';
import { HashEmbedder } from '../../src/embed/hash-embedder.js';
import { NatsEmbedder } from '../../src/embed/nats-embedder.js';
import { createMemoryFacade, type ManagedMemoryFacade } from '../../src/service/index.js';
import { runWorker, type RunningWorker } from '../../src/worker/run-worker.js';
import { skipWithoutNatsServer, startNatsServer, type NatsServer } from '../support/nats-server.js';
import { handbook } from '../support/source-fixtures.js';
import { createTestDb, type TestDb } from '../support/test-db.js';
import { waitFor } from '../support/wait-for.js';
import { DelayedHashEmbedder } from './delayed-hash-embedder.js';
import { spawnWorkerProcess } from './worker-process-handle.js';

const MODEL = 'hash-512-v1';

describe.skipIf(skipWithoutNatsServer())('source ingestion on embedding workers (real nats-server, real PGlite)', () => {
  let nats: NatsServer;
  let db: TestDb;
  let embedder: NatsEmbedder;
  let facade: ManagedMemoryFacade;
  const workers: RunningWorker[] = [];
  let tenants = 0;

  const principal = async (): Promise<Principal> => {
    tenants += 1;
    return facade.authenticate((await createKeyAdministration(db).createKey({ tenant: `ingest-${tenants}`, agent: 'writer' })).key);
  };

  /** Polls status until the ingestion is ready or failed, keeping every status seen. */
  const follow = async (caller: Principal, sourceId: string): Promise<SourceStatus[]> => {
    const seen: SourceStatus[] = [];
    await waitFor(async () => {
      const status = await facade.sourceStatus(caller, { source_id: sourceId });
      seen.push(status);
      return status.state === 'ready' || status.state === 'failed';
    }, 5, 60_000);
    return seen;
  };

  beforeAll(async () => {
    nats = await startNatsServer();
    db = await createTestDb({ modelId: MODEL, dimension: 512 });
    embedder = await NatsEmbedder.connect({ servers: nats.url, modelId: MODEL, dimension: 512, timeoutMs: 1_500, attempts: 3, backoff: { baseMs: 20, maxMs: 100 } });
    facade = createMemoryFacade({ db, embedder, config: { hitFlushIntervalMs: 3_600_000 }, sources: { syncChunks: 0, embedBatch: 4, embedConcurrency: 4, sweepMs: 3_600_000 } });
  });
  afterEach(async () => {
    for (const worker of workers.splice(0)) await worker.stop();
  });
  afterAll(async () => {
    await facade?.close();
    await embedder?.close();
    await db?.close();
    await nats?.stop();
  });

  it('spreads a background ingestion’s batches over two workers; status goes queued → indexing → ready with chunks_done only growing; vectors are the model’s', async () => {
    const batches = [0, 0];
    const flight = { now: 0, most: 0 };
    const worker = (w: number): Embedder => {
      const inner = new DelayedHashEmbedder(15, () => (batches[w] = (batches[w] ?? 0) + 1));
      return {
        modelId: inner.modelId,
        dimension: inner.dimension,
        async embed(texts) {
          flight.now += 1;
          flight.most = Math.max(flight.most, flight.now);
          try {
            return await inner.embed(texts);
          } finally {
            flight.now -= 1;
          }
        },
        close: () => inner.close(),
      };
    };
    for (const w of [0, 1]) workers.push(await runWorker({ embedder: worker(w), natsUrl: nats.url, maxWaitMs: 1 }));
    const caller = await principal();
    const accepted = await facade.ingestSource(caller, { text: handbook('spread', 40), format: 'markdown', source_id: 'spread' });
    expect(accepted).toMatchObject({ state: 'queued', chunks_done: 0 });
    expect(accepted.chunks_total).toBeGreaterThan(32);
    const seen = await follow(caller, 'spread');

    const order = ['queued', 'indexing', 'ready'];
    const states = seen.map((status) => order.indexOf(status.state));
    expect(states.every((state) => state >= 0)).toBe(true);
    expect(states).toEqual([...states].sort((a, b) => a - b));
    const done = seen.map((status) => status.chunks_done);
    expect(done).toEqual([...done].sort((a, b) => a - b));
    expect(seen.at(-1)).toMatchObject({ state: 'ready', chunks_done: accepted.chunks_total, chunks_total: accepted.chunks_total });
    expect(batches.every((count) => count > 0)).toBe(true);
    // Batches in flight at once on the two workers: the ingestion does not wait for one before sending the next.
    expect(flight.most).toBeGreaterThan(1);

    const { rows } = await db.query<{ content: string; embedding: string }>('SELECT content, embedding::text AS embedding FROM cells WHERE tenant_id = $1 ORDER BY chunk_index', [caller.tenantId]);
    expect(rows).toHaveLength(accepted.chunks_total);
    const expected = await new HashEmbedder().embed(rows.map((row) => row.content));
    rows.forEach((row, i) => {
      const vector = JSON.parse(row.embedding) as number[];
      vector.forEach((value, d) => expect(value).toBeCloseTo((expected[i] as Float32Array)[d] as number, 5));
    });
  });

  it('a worker killed mid-ingestion: its batches go to the live worker and the ingestion is ready, every chunk embedded once', async () => {
    workers.push(await runWorker({ embedder: new HashEmbedder(), natsUrl: nats.url, maxWaitMs: 1 }));
    const doomed = await spawnWorkerProcess(nats.url);
    const caller = await principal();
    const accepted = await facade.ingestSource(caller, { text: handbook('killed', 40), format: 'markdown', source_id: 'killed' });
    try {
      await doomed.untilPrinted('batch');
    } finally {
      doomed.child.kill('SIGKILL');
    }
    const seen = await follow(caller, 'killed');
    expect(seen.at(-1)).toMatchObject({ state: 'ready', chunks_done: accepted.chunks_total, failure: null });
    const count = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM cells WHERE tenant_id = $1 AND embedding IS NOT NULL', [caller.tenantId]);
    expect(count.rows[0]?.n).toBe(accepted.chunks_total);
  });

  it('with no worker left the ingestion ends failed with the reason — never indexing — and keeps the version served before', async () => {
    workers.push(await runWorker({ embedder: new HashEmbedder(), natsUrl: nats.url, maxWaitMs: 1 }));
    const caller = await principal();
    await facade.ingestSource(caller, { text: handbook('before', 40), format: 'markdown', source_id: 'orphan' });
    expect((await follow(caller, 'orphan')).at(-1)?.state).toBe('ready');
    for (const worker of workers.splice(0)) await worker.stop();
    await facade.ingestSource(caller, { text: handbook('after', 40), format: 'markdown', source_id: 'orphan' });
    const last = (await follow(caller, 'orphan')).at(-1);
    expect(last).toMatchObject({ state: 'failed', serving_previous: true });
    expect(last?.failure).toMatch(/^UNAVAILABLE: no embedding worker answered/);
    expect((await facade.readSource(caller, { source_id: 'orphan', limit: 40 })).text.startsWith('# Handbook before')).toBe(true);
  });
});
