/**
 * Source ingestion throughput (issue 44): a markdown document of BENCH_SOURCES_MIB MiB (default 1)
 * ingested in the background and waited for until ready, with MiniLM in-process and on two
 * `hyphae worker` processes over a real nats-server, each against embedding the same chunks alone
 * through the same embedder in the same batches (target ≤ 1.3×).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Embedder } from '../src/embed/embedder.js';
import { MINILM_DIMENSION, MINILM_MODEL_ID, MiniLmEmbedder } from '../src/embed/minilm-embedder.js';
import { NatsEmbedder } from '../src/embed/nats-embedder.js';
import { chunkSource } from '../src/knowledge/index.js';
import { embedChunkTexts } from '../src/service/sources/source-embedding.js';
import { DEFAULT_SOURCE_INGESTION_CONFIG } from '../src/service/sources/source-ingestion-runner.js';
import { NATS_SERVER_BINARY, natsServerInstalled, startNatsServer } from '../test/support/nats-server.js';
import { SOURCE_DOCUMENTS } from './fixtures/source-recall-questions.js';
import { openEngine } from './harness/engine.js';
import { elapsedMs, round } from './harness/measure.js';
import type { BenchRow } from './harness/section.js';
import { startWorkerProcess, type WorkerChild } from './worker-bench.js';

const FIXTURE_DIR = fileURLToPath(new URL('./fixtures/sources/', import.meta.url));
const TITLE = 'Tallyway handbook';
const EMBEDDING = { batch: DEFAULT_SOURCE_INGESTION_CONFIG.embedBatch, concurrency: DEFAULT_SOURCE_INGESTION_CONFIG.embedConcurrency };

/** The fixture's documents, one after the other as parts of one handbook, until it holds `bytes`. */
async function handbookOf(bytes: number): Promise<string> {
  const texts = await Promise.all(SOURCE_DOCUMENTS.map((doc) => readFile(join(FIXTURE_DIR, `${doc.id}.md`), 'utf8')));
  const parts: string[] = [`# ${TITLE}`];
  let size = 0;
  for (let part = 1; size < bytes; part += 1) {
    const text = (texts[(part - 1) % texts.length] as string).replace(/^(#{2,5}) /gm, '#$1 ').replace(/^# (.*)$/m, `## $1 (part ${part})`);
    parts.push(text);
    size += Buffer.byteLength(text, 'utf8');
  }
  return parts.join('\n\n');
}

interface Measured {
  readonly ingestMs: number;
  readonly aloneMs: number;
}

/** Ingests `text` in the background through a facade on `embedder` and waits until it is ready; and embeds its chunks alone. */
async function measure(embedder: Embedder, text: string, chunks: readonly string[]): Promise<Measured> {
  const aloneMs = await elapsedMs(() => embedChunkTexts(embedder, chunks, EMBEDDING));
  const engine = await openEngine(embedder, { sources: { syncChunks: 0, sweepMs: 3_600_000, maxBytes: 32 * 1024 * 1024, pendingMaxBytes: 64 * 1024 * 1024 } });
  try {
    const ingestMs = await elapsedMs(async () => {
      await engine.facade.ingestSource(engine.principal, { text, format: 'markdown', title: TITLE, source_id: 'handbook' });
      for (;;) {
        const status = await engine.facade.sourceStatus(engine.principal, { source_id: 'handbook' });
        if (status.state === 'ready') return;
        if (status.state === 'failed') throw new Error(`the bench ingestion failed: ${status.failure ?? ''}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    });
    return { ingestMs, aloneMs };
  } finally {
    await engine.close();
  }
}

function rowsOf(where: string, measured: Measured, chunks: number, bytes: number): BenchRow[] {
  const seconds = measured.ingestMs / 1000;
  return [
    { metric: `ingest ${where}: chunks per second`, value: round(chunks / seconds), unit: 'chunks/s', baseline: round(chunks / (measured.aloneMs / 1000)), note: 'baseline: the same chunks embedded alone' },
    { metric: `ingest ${where}: MB per minute`, value: round(bytes / 1e6 / (seconds / 60)), unit: 'MB/min' },
    { metric: `ingest ${where}: time ÷ embedding alone`, value: round(measured.ingestMs), unit: 'ms', baseline: round(measured.aloneMs), ratio: round(measured.ingestMs / measured.aloneMs, 2), target: '≤ 1.3×' },
  ];
}

export async function sourceIngestRows(): Promise<BenchRow[]> {
  if (!natsServerInstalled()) throw new Error(`the sources bench needs ${NATS_SERVER_BINARY} for its two-worker run, which was not found (apt-get install -y nats-server)`);
  const mib = Number(process.env.BENCH_SOURCES_MIB ?? '1');
  const text = await handbookOf(mib * 1024 * 1024);
  const bytes = Buffer.byteLength(text, 'utf8');
  const chunks = chunkSource(text, 'markdown', TITLE).map((chunk) => chunk.text);
  const rows: BenchRow[] = [{ metric: 'document', value: round(bytes / 1024 / 1024), unit: 'MiB', note: `${chunks.length} chunks of markdown` }];

  const local = new MiniLmEmbedder();
  try {
    await local.embed(chunks.slice(0, 64));
    rows.push(...rowsOf('in-process', await measure(local, text, chunks), chunks.length, bytes));
  } finally {
    await local.close();
  }

  const nats = await startNatsServer();
  const workers: WorkerChild[] = [];
  let remote: NatsEmbedder | undefined;
  try {
    for (let i = 0; i < 2; i += 1) workers.push(await startWorkerProcess(nats.url, 'minilm'));
    remote = await NatsEmbedder.connect({ servers: nats.url, modelId: MINILM_MODEL_ID, dimension: MINILM_DIMENSION, timeoutMs: 120_000, attempts: 1 });
    await remote.embed(chunks.slice(0, 64));
    rows.push(...rowsOf('on two workers', await measure(remote, text, chunks), chunks.length, bytes));
  } finally {
    await remote?.close();
    for (const worker of workers) await worker.stop().catch(() => undefined);
    await nats.stop();
  }
  return rows;
}
