/**
 * `hyphae worker` throughput and the cost of the NATS hop. Workers are real `hyphae worker`
 * processes (bin/hyphae.js) on a real nats-server; the in-process embedder is the baseline.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { cpus } from 'node:os';
import type { Embedder } from '../src/embed/embedder.js';
import { HashEmbedder } from '../src/embed/hash-embedder.js';
import { NatsEmbedder } from '../src/embed/nats-embedder.js';
import { UseLiteEmbedder } from '../src/embed/use-lite-embedder.js';
import { runWorker } from '../src/worker/run-worker.js';
import { NATS_SERVER_BINARY, natsServerInstalled, startNatsServer } from '../test/support/nats-server.js';
import { percentile } from './harness/section.js';
import { embedThroughput } from './harness/embedders.js';
import { HYPHAE_BIN } from './harness/processes.js';
import { roundTo, sampleLatencies } from './harness/measure.js';
import type { BenchRow, BenchSection } from './harness/section.js';
import { syntheticCorpus } from './corpus.js';

const USE_LITE_TEXTS = 256;
const BATCH_EFFECT_TEXTS = 64;
const HOP_SAMPLES = 500;
const HASH_THROUGHPUT_TEXTS = 4_096;

export interface WorkerChild {
  stop(): Promise<void>;
}

/** Starts `hyphae worker --no-http` and resolves once it announces its subject. */
export async function startWorkerProcess(natsUrl: string, embedder: 'use-lite' | 'hash' | 'minilm'): Promise<WorkerChild> {
  const child: ChildProcess = spawn(process.execPath, [HYPHAE_BIN, 'worker', '--nats-url', natsUrl, '--no-http', '--embedder', embedder], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let text = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
      if (text.includes('NATS subject')) resolve();
    });
    void exited.then(() => reject(new Error(`hyphae worker exited before serving: ${text}`)));
  });
  return {
    async stop(): Promise<void> {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** One text per call, each call timed. */
async function latencies(embedder: Embedder, texts: readonly string[]): Promise<readonly number[]> {
  return (await sampleLatencies((i) => embedder.embed([texts[i] as string]), { warmup: 0, samples: texts.length })).samples;
}

const r1 = (value: number): number => roundTo(value, 1);
const r3 = (value: number): number => roundTo(value, 3);
const ratio = (value: number, baseline: number): number => roundTo(value / baseline, 2);

export async function runWorkerBench(): Promise<BenchSection> {
  // A missing prerequisite is a failed section (exit code 1), never a row of zeros.
  if (!natsServerInstalled()) throw new Error(`the worker bench needs ${NATS_SERVER_BINARY}, which was not found (apt-get install -y nats-server)`);
  const rows: BenchRow[] = [];
  const corpus = syntheticCorpus(HASH_THROUGHPUT_TEXTS, 8);
  const nats = await startNatsServer();
  const children: WorkerChild[] = [];
  const clients: NatsEmbedder[] = [];
  const client = async (modelId: string, maxTextsPerRequest: number): Promise<NatsEmbedder> => {
    const embedder = await NatsEmbedder.connect({ servers: nats.url, modelId, dimension: 512, maxTextsPerRequest, timeoutMs: 120_000, attempts: 1 });
    clients.push(embedder);
    return embedder;
  };
  try {
    // use-lite: in-process vs one worker vs two workers, each fed 384 texts as parallel requests of 16.
    const texts = corpus.slice(0, USE_LITE_TEXTS);
    const local = new UseLiteEmbedder();
    await local.warmUp();
    await local.embed(texts.slice(0, 64));
    const inProcess = await embedThroughput(local, texts, 64);
    rows.push({ metric: 'use-lite in-process (batches of 64)', value: r1(inProcess), unit: 'texts/s', note: `${USE_LITE_TEXTS} texts; baseline of this section` });

    children.push(await startWorkerProcess(nats.url, 'use-lite'));
    const overNats = await client('use-lite-512', 16);
    await overNats.embed(texts.slice(0, 32));
    const oneWorker = await embedThroughput(overNats, texts, USE_LITE_TEXTS);
    rows.push({ metric: 'use-lite, 1 worker over NATS', value: r1(oneWorker), unit: 'texts/s', baseline: r1(inProcess), ratio: ratio(oneWorker, inProcess), note: 'requests of 16 texts, all in flight; worker micro-batches ≤64' });

    children.push(await startWorkerProcess(nats.url, 'use-lite'));
    await overNats.embed(texts.slice(0, 64));
    const twoWorkers = await embedThroughput(overNats, texts, USE_LITE_TEXTS);
    rows.push({
      metric: 'use-lite, 2 workers over NATS',
      value: r1(twoWorkers),
      unit: 'texts/s',
      baseline: r1(oneWorker),
      ratio: ratio(twoWorkers, oneWorker),
      note: `${cpus().length} cores shared by both workers, the client and nats-server; each worker runs one single-threaded WASM model`,
    });
    for (const child of children.splice(0)) await child.stop();

    // Batch size effect on the model itself.
    const batchTexts = corpus.slice(USE_LITE_TEXTS, USE_LITE_TEXTS + BATCH_EFFECT_TEXTS);
    const single = await embedThroughput(local, batchTexts, 1);
    rows.push({ metric: 'use-lite in-process, batch 1', value: r1(single), unit: 'texts/s', note: `${BATCH_EFFECT_TEXTS} texts` });
    for (const size of [8, 64]) {
      const batched = await embedThroughput(local, batchTexts, size);
      rows.push({ metric: `use-lite in-process, batch ${size}`, value: r1(batched), unit: 'texts/s', baseline: r1(single), ratio: ratio(batched, single) });
    }

    // The NATS hop: hash embeds in microseconds, so what remains is protocol, JSON/base64 and the round trip.
    children.push(await startWorkerProcess(nats.url, 'hash'));
    const hashLocal = new HashEmbedder();
    const hashRemote = await client('hash-512-v1', 64);
    const hopTexts = corpus.slice(0, HOP_SAMPLES);
    await latencies(hashRemote, hopTexts.slice(0, 50));
    const localLatency = await latencies(hashLocal, hopTexts);
    const remoteLatency = await latencies(hashRemote, hopTexts);
    const localP50 = percentile(localLatency, 50);
    const localP99 = percentile(localLatency, 99);
    const remoteP50 = percentile(remoteLatency, 50);
    const remoteP99 = percentile(remoteLatency, 99);
    rows.push({ metric: 'one text, hash in-process p50', value: r3(localP50), unit: 'ms' });
    rows.push({ metric: 'one text, hash via NATS worker p50', value: r3(remoteP50), unit: 'ms', baseline: r3(localP50), note: `${HOP_SAMPLES} sequential requests; worker waits ≤5 ms to batch` });
    rows.push({ metric: 'one text, hash via NATS worker p99', value: r3(remoteP99), unit: 'ms', baseline: r3(localP99) });
    rows.push({ metric: 'NATS hop added latency p50', value: r3(remoteP50 - localP50), unit: 'ms', note: 'includes the worker’s micro-batch wait (5 ms max)' });
    rows.push({ metric: 'NATS hop added latency p99', value: r3(remoteP99 - localP99), unit: 'ms' });

    // The bare round trip: an in-process worker that does not wait to batch.
    const bare = await runWorker({ embedder: new HashEmbedder(), natsUrl: nats.url, maxWaitMs: 0, queue: 'bench-bare' });
    try {
      const bareClient = await NatsEmbedder.connect({ servers: nats.url, modelId: 'hash-512-v1', dimension: 512, timeoutMs: 30_000, attempts: 1 });
      clients.push(bareClient);
      // Stop the worker process so only the no-wait worker answers.
      for (const child of children.splice(0)) await child.stop();
      await latencies(bareClient, hopTexts.slice(0, 50));
      const bareLatency = await latencies(bareClient, hopTexts);
      rows.push({ metric: 'NATS round trip, no batch wait p50', value: r3(percentile(bareLatency, 50)), unit: 'ms', note: 'in-process worker, maxWaitMs 0: protocol, JSON and base64 only' });
      rows.push({ metric: 'NATS round trip, no batch wait p99', value: r3(percentile(bareLatency, 99)), unit: 'ms' });
      children.push(await startWorkerProcess(nats.url, 'hash'));
    } finally {
      await bare.stop();
    }

    const hashInProcess = await embedThroughput(hashLocal, corpus, 64);
    const perRequest1 = await embedThroughput(await client('hash-512-v1', 1), corpus.slice(0, 1_024), 1_024);
    const perRequest64 = await embedThroughput(hashRemote, corpus, HASH_THROUGHPUT_TEXTS);
    rows.push({ metric: 'hash in-process', value: r1(hashInProcess), unit: 'texts/s' });
    rows.push({ metric: 'hash via 1 NATS worker, 1 text per request', value: r1(perRequest1), unit: 'texts/s', baseline: r1(hashInProcess), ratio: ratio(perRequest1, hashInProcess), note: 'all requests in flight' });
    rows.push({ metric: 'hash via 1 NATS worker, 64 texts per request', value: r1(perRequest64), unit: 'texts/s', baseline: r1(perRequest1), ratio: ratio(perRequest64, perRequest1), note: 'request size effect: fewer, larger messages' });
    return { name: 'embedding workers', rows };
  } finally {
    for (const embedder of clients) await embedder.close().catch(() => undefined);
    for (const child of children) await child.stop().catch(() => undefined);
    await nats.stop();
  }
}
