import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import type { Principal } from '../../src/core/principal.js';
import { HashEmbedder } from '../../src/embed/hash-embedder.js';
import { NatsEmbedder } from '../../src/embed/nats-embedder.js';
import { createMemoryFacade, type ManagedMemoryFacade } from '../../src/service/index.js';
import { runWorker } from '../../src/worker/run-worker.js';
import type { RunningWorker } from '../../src/worker/run-worker.js';
import { skipWithoutNatsServer, startNatsServer } from '../support/nats-server.js';
import type { NatsServer } from '../support/nats-server.js';
import { createTestDb } from '../support/test-db.js';
import type { TestDb } from '../support/test-db.js';
import { spawnWorkerProcess } from './worker-process-handle.js';

const MODEL = 'hash-512-v1';

/** Every stored cell of a tenant with its vector as pgvector text. */
async function storedCells(db: TestDb, tenant: string): Promise<{ content: string; embedding: string | null }[]> {
  const { rows } = await db.query<{ content: string; embedding: string | null }>(
    'SELECT content, embedding::text AS embedding FROM cells WHERE tenant_id = $1 ORDER BY content',
    [tenant],
  );
  return rows;
}

describe.skipIf(skipWithoutNatsServer())('storing through embedding workers (real nats-server, real PGlite)', () => {
  let nats: NatsServer;
  let db: TestDb;
  let embedder: NatsEmbedder;
  let facade: ManagedMemoryFacade;
  const workers: RunningWorker[] = [];
  let tenantCounter = 0;

  const principal = async (): Promise<Principal> => {
    tenantCounter += 1;
    const key = await createKeyAdministration(db).createKey({ tenant: `workers-${tenantCounter}`, agent: 'agent-a' });
    return facade.authenticate(key.key);
  };

  beforeAll(async () => {
    nats = await startNatsServer();
    db = await createTestDb({ modelId: MODEL, dimension: 512 });
    embedder = await NatsEmbedder.connect({ servers: nats.url, modelId: MODEL, dimension: 512, timeoutMs: 1_500, attempts: 4 });
    facade = createMemoryFacade({ db, embedder, config: { hitFlushIntervalMs: 3_600_000 } });
  });
  afterEach(async () => {
    for (const worker of workers.splice(0)) await worker.stop();
  });
  afterAll(async () => {
    await facade.close();
    await embedder.close();
    await db.close();
    await nats.stop();
  });

  it('with no worker, store fails UNAVAILABLE and writes nothing', async () => {
    const caller = await principal();
    await expect(facade.store(caller, { content: 'nobody embeds this', cell_type: 'Fact', salience: 0.5 })).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(await storedCells(db, caller.tenantId)).toEqual([]);
  });

  it('a worker killed mid-burst: every store the facade reports succeeded has its cell, with the right vector', async () => {
    const caller = await principal();
    workers.push(await runWorker({ embedder: new HashEmbedder(), natsUrl: nats.url }));
    const doomed = await spawnWorkerProcess(nats.url);
    const contents = Array.from({ length: 40 }, (_, i) => `burst cell ${String(i).padStart(2, '0')}: the payments gateway retries with backoff`);
    const stores = Promise.allSettled(contents.map((content) => facade.store(caller, { content, cell_type: 'Decision', salience: 0.5 })));
    try {
      await doomed.untilPrinted('batch');
    } finally {
      doomed.child.kill('SIGKILL');
    }
    const outcomes = await stores;
    const stored = outcomes.filter((o) => o.status === 'fulfilled').length;
    // With retries and a live worker, nothing should fail; any failure must be a clean UNAVAILABLE.
    for (const outcome of outcomes) if (outcome.status === 'rejected') expect(outcome.reason).toMatchObject({ code: 'UNAVAILABLE' });
    expect(stored).toBe(contents.length);
    const cells = await storedCells(db, caller.tenantId);
    expect(cells.map((c) => c.content)).toEqual([...contents].sort());
    const expected = await new HashEmbedder().embed(cells.map((c) => c.content));
    cells.forEach((cell, i) => {
      const vector = JSON.parse(cell.embedding as string) as number[];
      expect(vector).toHaveLength(512);
      vector.forEach((value, d) => expect(value).toBeCloseTo((expected[i] as Float32Array)[d] as number, 5));
    });
  });
});
