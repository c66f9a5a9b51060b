import { afterEach, describe, expect, it } from 'vitest';
import { decodeVector } from '../../src/embed/embed-wire.js';
import type { Embedder } from '../../src/embed/embedder.js';
import { HashEmbedder } from '../../src/embed/hash-embedder.js';
import { runWorker } from '../../src/worker/run-worker.js';
import type { RunningWorker } from '../../src/worker/run-worker.js';
import { DelayedHashEmbedder } from './delayed-hash-embedder.js';
import { metricValue } from './worker-metrics-reader.js';

interface EmbeddingsResponse {
  object: string;
  data: { object: string; index: number; embedding: number[] | string }[];
  model: string;
  usage: { prompt_tokens: number; total_tokens: number };
}

const local = new HashEmbedder();

describe('hyphae worker over HTTP (real sockets)', () => {
  const workers: RunningWorker[] = [];
  afterEach(async () => {
    for (const worker of workers.splice(0)) await worker.stop();
  });
  const start = async (embedder: Embedder = new HashEmbedder()): Promise<RunningWorker> => {
    const worker = await runWorker({ embedder, port: 0 });
    workers.push(worker);
    return worker;
  };
  const post = (worker: RunningWorker, body: unknown): Promise<Response> =>
    fetch(`${worker.httpUrl}/v1/embeddings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('answers POST /v1/embeddings in the OpenAI shape, for a string and for an array', async () => {
    const worker = await start();
    const single = await post(worker, { input: 'cache the checkout API', model: 'hash-512-v1' });
    expect(single.status).toBe(200);
    const one = (await single.json()) as EmbeddingsResponse;
    expect(one.object).toBe('list');
    expect(one.model).toBe('hash-512-v1');
    expect(one.data).toHaveLength(1);
    expect(one.data[0]).toMatchObject({ object: 'embedding', index: 0 });
    expect(one.data[0]?.embedding).toEqual(Array.from((await local.embed(['cache the checkout API']))[0] as Float32Array));
    expect(one.usage).toEqual({ prompt_tokens: 4, total_tokens: 4 });

    const inputs = ['alpha beta', 'gamma', 'delta epsilon zeta'];
    const many = (await (await post(worker, { input: inputs })).json()) as EmbeddingsResponse;
    expect(many.data.map((d) => d.index)).toEqual([0, 1, 2]);
    const expected = await local.embed(inputs);
    expect(many.data.map((d) => d.embedding)).toEqual(expected.map((v) => Array.from(v)));
  });

  it('supports encoding_format base64 (the official Python client asks for it)', async () => {
    const worker = await start();
    const body = (await (await post(worker, { input: ['x y'], encoding_format: 'base64' })).json()) as EmbeddingsResponse;
    expect(typeof body.data[0]?.embedding).toBe('string');
    expect(Array.from(decodeVector(body.data[0]?.embedding as string))).toEqual(Array.from((await local.embed(['x y']))[0] as Float32Array));
  });

  it('refuses another model (404), wrong dimensions and malformed bodies (400) with OpenAI-style errors', async () => {
    const worker = await start();
    const wrongModel = await post(worker, { input: 'x', model: 'text-embedding-3-small' });
    expect(wrongModel.status).toBe(404);
    expect(((await wrongModel.json()) as { error: { code: string } }).error.code).toBe('model_not_found');
    expect((await post(worker, { input: 'x', dimensions: 256 })).status).toBe(400);
    const malformed = await post(worker, { input: [1, 2, 3] });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { type: string; param: string } }).error).toMatchObject({ type: 'invalid_request_error' });
    expect((await post(worker, { input: [] })).status).toBe(400);
    expect(await metricValue(worker, 'hyphae_worker_requests_total', { transport: 'http', outcome: 'invalid' })).toBe(4);
  });

  it('serves /healthz, /readyz and Prometheus /metrics with requests, batch sizes, latency and queue depth', async () => {
    const worker = await start();
    await post(worker, { input: ['one', 'two'] });
    expect((await fetch(`${worker.httpUrl}/healthz`)).status).toBe(200);
    const ready = await fetch(`${worker.httpUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', model: 'hash-512-v1', dimension: 512 });
    const metrics = await fetch(`${worker.httpUrl}/metrics`);
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    const text = await metrics.text();
    expect(text).toContain('hyphae_worker_requests_total{transport="http",outcome="ok",model="hash-512-v1"} 1');
    expect(text).toContain('hyphae_worker_batch_size_sum{model="hash-512-v1"} 2');
    expect(text).toContain('hyphae_worker_request_duration_seconds_count');
    expect(text).toContain('hyphae_worker_queue_depth{model="hash-512-v1"} 0');
  });

  it('on stop, answers the request it holds, then refuses to serve', async () => {
    let calls = 0;
    let holding: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      holding = resolve;
    });
    // Call 1 is the warm-up; call 2 is our request, held 300 ms inside the embedder.
    const worker = await runWorker({ embedder: new DelayedHashEmbedder(300, () => ++calls === 2 && holding()), port: 0 });
    const url = worker.httpUrl as string;
    const inFlight = post(worker, { input: 'finish me' });
    await held;
    const stopping = worker.stop();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(((await response.json()) as EmbeddingsResponse).data).toHaveLength(1);
    await stopping;
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });

  it('refuses to start with nothing to serve', async () => {
    await expect(runWorker({ embedder: new HashEmbedder() })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
