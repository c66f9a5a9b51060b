import type { Embedder } from '../src/embed/embedder.js';
import { HashEmbedder } from '../src/embed/hash-embedder.js';
import { UseLiteEmbedder } from '../src/embed/use-lite-embedder.js';
import type { BenchRow, BenchSection } from './bench-section.js';
import { syntheticCorpus } from './corpus.js';

const HASH_TEXTS = 20_000;
const USE_LITE_TEXTS = 1_024;
const USE_LITE_SINGLE_TEXTS = 64;
const CORPUS_SEED = 42;

/** Texts per second embedding `texts` in calls of `callSize`. */
async function throughput(embedder: Embedder, texts: readonly string[], callSize: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < texts.length; i += callSize) await embedder.embed(texts.slice(i, i + callSize));
  return texts.length / ((performance.now() - started) / 1000);
}

/** Embedding-only throughput, so the store benches can show what storage adds on top of it. */
export async function runEmbedBench(): Promise<BenchSection> {
  const corpus = syntheticCorpus(HASH_TEXTS, CORPUS_SEED);
  const rows: BenchRow[] = [];

  const hash = new HashEmbedder();
  await throughput(hash, corpus.slice(0, 1_000), 256);
  const hashRate = await throughput(hash, corpus, 256);
  rows.push({ metric: 'hash-512-v1 embed throughput', value: round(hashRate), unit: 'texts/s', note: `${HASH_TEXTS} texts, calls of 256` });
  const trigramRate = await throughput(new HashEmbedder({ charTrigrams: true }), corpus, 256);
  rows.push({ metric: 'hash-512-v1-c3 (char trigrams) embed throughput', value: round(trigramRate), unit: 'texts/s', baseline: round(hashRate), ratio: ratio(trigramRate, hashRate) });

  const useLite = new UseLiteEmbedder();
  const loadMs = await useLite.warmUp();
  rows.push({ metric: 'use-lite-512 model load (first in process)', value: round(loadMs), unit: 'ms', note: 'weights read from node_modules, tfjs WASM backend' });
  await useLite.embed(corpus.slice(0, 64));
  const singleRate = await throughput(useLite, corpus.slice(0, USE_LITE_SINGLE_TEXTS), 1);
  rows.push({ metric: 'use-lite-512 embed throughput, one text per call', value: round(singleRate), unit: 'texts/s', note: `${USE_LITE_SINGLE_TEXTS} texts` });
  const batchedRate = await throughput(useLite, corpus.slice(0, USE_LITE_TEXTS), 64);
  rows.push({
    metric: 'use-lite-512 embed throughput, batches of 64',
    value: round(batchedRate),
    unit: 'texts/s',
    baseline: round(singleRate),
    ratio: ratio(batchedRate, singleRate),
    note: `${USE_LITE_TEXTS} texts, mean ${Math.round(meanLength(corpus.slice(0, USE_LITE_TEXTS)))} chars; ratio to one text per call`,
  });
  rows.push({ metric: 'hash speed-up over use-lite (batched)', value: ratio(hashRate, batchedRate), unit: 'x', baseline: round(batchedRate), ratio: ratio(hashRate, batchedRate) });
  return { name: 'embedding only', rows };
}

function meanLength(texts: readonly string[]): number {
  return texts.reduce((sum, text) => sum + text.length, 0) / Math.max(1, texts.length);
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

function ratio(value: number, baseline: number): number {
  return Math.round((value / baseline) * 100) / 100;
}
