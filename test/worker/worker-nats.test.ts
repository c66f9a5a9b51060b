import { connect } from '@nats-io/transport-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { InvalidArgumentError, UnavailableError } from '../../src/core/errors.js';
import type { Embedder } from '../../src/embed/embedder.js';
import { createEmbedder } from '../../src/embed/create-embedder.js';
import { embedSubject, encodeVector } from '../../src/embed/embed-wire.js';
import { HashEmbedder } from '../../src/embed/hash-embedder.js';
import { NatsEmbedder } from '../../src/embed/nats-embedder.js';
import { runWorker } from '../../src/worker/run-worker.js';
import type { RunningWorker } from '../../src/worker/run-worker.js';
import { skipWithoutNatsServer, startNatsServer } from '../support/nats-server.js';
import type { NatsServer } from '../support/nats-server.js';
import { DelayedHashEmbedder } from './delayed-hash-embedder.js';
import { metricValue } from './worker-metrics-reader.js';
import { spawnWorkerProcess } from './worker-process-handle.js';

const MODEL = 'hash-512-v1';
const local = new HashEmbedder();
const texts = (n: number, tag: string): string[] => Array.from({ length: n }, (_, i) => `${tag} request ${i}: the ledger service stores payments in PostgreSQL`);

async function expectLocalVectors(actual: Float32Array[], inputs: readonly string[]): Promise<void> {
  const expected = await local.embed(inputs);
  expect(actual.map((v) => Array.from(v))).toEqual(expected.map((v) => Array.from(v)));
}

describe.skipIf(skipWithoutNatsServer())('hyphae worker over a real nats-server', () => {
  let nats: NatsServer;
  const cleanups: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    nats = await startNatsServer();
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  });
  afterAll(async () => {
    await nats.stop();
  });

  const worker = async (embedder: Embedder = new HashEmbedder()): Promise<RunningWorker> => {
    const running = await runWorker({ embedder, natsUrl: nats.url });
    cleanups.push(() => running.stop());
    return running;
  };
  const client = async (options: Partial<Parameters<typeof NatsEmbedder.connect>[0]> = {}): Promise<NatsEmbedder> => {
    const embedder = await NatsEmbedder.connect({ servers: nats.url, modelId: MODEL, dimension: 512, ...options });
    cleanups.push(() => embedder.close());
    return embedder;
  };

  it('two workers in the queue group share the requests, each answered once with the model the worker names', async () => {
    const [a, b] = [await worker(), await worker()];
    const embedder = await client({ maxTextsPerRequest: 1 });
    const inputs = texts(200, 'share');
    const vectors = await embedder.embed(inputs);
    await expectLocalVectors(vectors, inputs);
    const answeredByA = await metricValue(a, 'hyphae_worker_requests_total', { transport: 'nats', outcome: 'ok' });
    const answeredByB = await metricValue(b, 'hyphae_worker_requests_total', { transport: 'nats', outcome: 'ok' });
    expect(answeredByA).toBeGreaterThan(0);
    expect(answeredByB).toBeGreaterThan(0);
    expect(answeredByA + answeredByB).toBe(200);
    expect(a.subject).toBe(embedSubject(MODEL));
  });

  it('micro-batches concurrent requests into fewer embedder calls', async () => {
    const slow = new DelayedHashEmbedder(50);
    const running = await worker(slow);
    const embedder = await client({ maxTextsPerRequest: 1 });
    const inputs = texts(64, 'batch');
    await expectLocalVectors(await embedder.embed(inputs), inputs);
    // One warm-up call at start, then far fewer calls than the 64 requests.
    expect(slow.calls - 1).toBeLessThan(64);
    expect(await metricValue(running, 'hyphae_worker_batch_size_count')).toBe(slow.calls - 1);
  });

  it('a worker killed mid-burst loses no request: what it held is retried on the other worker', async () => {
    await worker();
    const doomed = await spawnWorkerProcess(nats.url);
    cleanups.push(async () => doomed.child.kill('SIGKILL'));
    const embedder = await client({ maxTextsPerRequest: 1, timeoutMs: 1_500, attempts: 4 });
    const inputs = texts(120, 'kill');
    const burst = embedder.embed(inputs);
    // Its batches are never released: once one starts, the worker dies holding requests.
    await doomed.untilPrinted('batch');
    doomed.child.kill('SIGKILL');
    expect(await doomed.exitCode).toBeNull();
    await expectLocalVectors(await burst, inputs);
  });

  it('SIGTERM: the worker stops taking work, answers everything it holds, and exits 0', async () => {
    // Batches of 4 texts: one request runs (held) while the other five wait in the worker's queue.
    const leaving = await spawnWorkerProcess(nats.url, { maxBatchTexts: 4 });
    cleanups.push(async () => leaving.child.kill('SIGKILL'));
    // One attempt only: a request the leaving worker dropped would fail this test.
    const embedder = await client({ maxTextsPerRequest: 4, attempts: 1, timeoutMs: 10_000 });
    const inputs = texts(24, 'term');
    const burst = embedder.embed(inputs);
    await leaving.untilPrinted('batch');
    // Every request has reached the worker before it is told to leave: 4 texts held, 20 queued.
    while ((await leaving.queuedTexts()) < 20) await new Promise((resolve) => setTimeout(resolve, 20));
    leaving.child.kill('SIGTERM');
    await leaving.untilPrinted('draining');
    leaving.release();
    await expectLocalVectors(await burst, inputs);
    expect(await leaving.exitCode).toBe(0);
    await expect(embedder.embed(['after the last worker left'])).rejects.toBeInstanceOf(UnavailableError);
  });

  it('SIGTERM under a steady stream: what the server routed to the leaving worker while it unsubscribed is answered, nothing lost', async () => {
    const staying = await worker();
    // Busy for 300 ms as its stop begins: requests the server routes to it meanwhile wait unread.
    const leaving = await spawnWorkerProcess(nats.url, { blockOnSigtermMs: 300 });
    cleanups.push(async () => leaving.child.kill('SIGKILL'));
    leaving.release();
    // One attempt only: a request routed to the leaving worker and dropped would fail its call.
    const embedder = await client({ maxTextsPerRequest: 1, attempts: 1, timeoutMs: 10_000 });
    const calls: { input: string; vector: Promise<Float32Array[]> }[] = [];
    let stop = false;
    let gone = false;
    void leaving.exitCode.then(() => (gone = true));
    // Eight callers keep requests in flight from before the SIGTERM until after the worker exited.
    const callers = Array.from({ length: 8 }, async (_, caller) => {
      for (let i = 0; !stop; i++) {
        const input = `steady ${caller}/${i}: the ledger service stores payments in PostgreSQL`;
        const vector = embedder.embed([input]);
        calls.push({ input, vector });
        await vector.catch(() => undefined);
      }
    });
    await leaving.untilPrinted('batch');
    leaving.child.kill('SIGTERM');
    expect(await leaving.exitCode).toBe(0);
    const atExit = calls.length;
    while (calls.length < atExit + 40) await new Promise((resolve) => setTimeout(resolve, 10));
    stop = true;
    await Promise.all(callers);
    expect(gone).toBe(true);
    const settled = await Promise.allSettled(calls.map((c) => c.vector));
    expect(settled.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
    await expectLocalVectors(
      settled.map((r) => (r as PromiseFulfilledResult<Float32Array[]>).value[0]!),
      calls.map((c) => c.input),
    );
    expect(await metricValue(staying, 'hyphae_worker_requests_total', { transport: 'nats', outcome: 'ok' })).toBeGreaterThan(0);
  });

  it('with no worker the call fails UNAVAILABLE, or embeds locally when a fallback is configured', async () => {
    const embedder = await client({ attempts: 2 });
    const failure = await embedder.embed(['nobody listens']).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UnavailableError);
    expect((failure as UnavailableError).message).toContain(embedSubject(MODEL));
    const withFallback = await client({ attempts: 2, fallback: new HashEmbedder() });
    await expectLocalVectors(await withFallback.embed(['embedded locally']), ['embedded locally']);
  });

  it('createEmbedder builds the nats embedder from configuration, fallback included', async () => {
    const configured = await createEmbedder({ kind: 'nats', natsUrl: nats.url, model: MODEL, fallback: 'hash', attempts: 1 });
    cleanups.push(() => configured.close());
    expect(configured).toBeInstanceOf(NatsEmbedder);
    expect(configured.dimension).toBe(512);
    await expectLocalVectors(await configured.embed(['no worker, local fallback']), ['no worker, local fallback']);
    await expect(createEmbedder({ kind: 'nats', natsUrl: nats.url, fallback: 'hash' })).rejects.toBeInstanceOf(InvalidArgumentError);
  });

  it('refuses a fallback of another model at construction', async () => {
    await expect(client({ fallback: new HashEmbedder({ dimension: 256 }) })).rejects.toBeInstanceOf(InvalidArgumentError);
  });

  it('refuses a reply naming another model or carrying vectors of another length, without storing anything from it', async () => {
    const impostor = await connect({ servers: nats.url });
    cleanups.push(() => impostor.close());
    let mode: 'model' | 'length' = 'model';
    impostor.subscribe(embedSubject(MODEL), {
      callback: (_error, message) => {
        const { texts: inputs } = JSON.parse(message.string()) as { texts: string[] };
        const vector = encodeVector(new Float32Array(mode === 'model' ? 512 : 256).fill(0.01));
        message.respond(JSON.stringify({ model: mode === 'model' ? 'use-lite-512' : MODEL, dimension: 512, vectors: inputs.map(() => vector) }));
      },
    });
    await impostor.flush();
    const embedder = await client({ attempts: 3 });
    await expect(embedder.embed(['x'])).rejects.toThrow(/serves 'use-lite-512'/);
    mode = 'length';
    await expect(embedder.embed(['x'])).rejects.toThrow(/wrong count or length/);
  });

  it('answers a malformed request with INVALID_ARGUMENT, and the client does not retry it', async () => {
    const running = await worker();
    const raw = await connect({ servers: nats.url });
    cleanups.push(() => raw.close());
    const reply = await raw.request(embedSubject(MODEL), JSON.stringify({ texts: [] }), { timeout: 5_000 });
    expect((JSON.parse(reply.string()) as { error: { code: string } }).error.code).toBe('INVALID_ARGUMENT');
    const notJson = await raw.request(embedSubject(MODEL), 'not json', { timeout: 5_000 });
    expect((JSON.parse(notJson.string()) as { error: { code: string } }).error.code).toBe('INVALID_ARGUMENT');
    expect(await metricValue(running, 'hyphae_worker_requests_total', { outcome: 'invalid' })).toBe(2);
  });

  it('reports not ready, and hyphae_nats_connected 0, while NATS is away, and serves again once it is back on the same port', async () => {
    const running = await runWorker({ embedder: new HashEmbedder(), natsUrl: nats.url, port: 0 });
    cleanups.push(() => running.stop());
    const readiness = async (): Promise<number> => (await fetch(`${running.httpUrl}/readyz`)).status;
    const until = async (status: number): Promise<void> => {
      while ((await readiness()) !== status) await new Promise((resolve) => setTimeout(resolve, 50));
    };
    const embedder = await client({ attempts: 10, timeoutMs: 2_000 });
    await embedder.embed(['before']);
    expect(await readiness()).toBe(200);
    const connected = (): Promise<number> => metricValue(running, 'hyphae_nats_connected', { connection: 'embed' });
    expect(await connected()).toBe(1);
    await nats.stop();
    await until(503);
    expect(await (await fetch(`${running.httpUrl}/readyz`)).json()).toMatchObject({ reasons: ['NATS disconnected'] });
    expect(await connected()).toBe(0);
    await nats.start();
    await until(200);
    expect(await connected()).toBe(1);
    await expectLocalVectors(await embedder.embed(['after']), ['after']);
  });
});
