import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Embedder } from '../src/embed/embedder.js';
import { HashEmbedder } from '../src/embed/hash-embedder.js';
import { MiniLmEmbedder } from '../src/embed/minilm-embedder.js';
import { UseLiteEmbedder } from '../src/embed/use-lite-embedder.js';
import { embedThroughput } from './harness/embedders.js';
import { miniLmPrecisionRows } from './minilm-precision.js';
import { roundTo } from './harness/measure.js';
import type { BenchRow, BenchSection } from './harness/section.js';
import { syntheticCorpus } from './corpus.js';
import { PARAPHRASE_CASES, scoreParaphrases, type ParaphraseScore } from './paraphrase-fixture.js';

const HASH_TEXTS = 20_000;
const MODEL_TEXTS = 1_024;
const MODEL_SINGLE_TEXTS = 64;
const CORPUS_SEED = 42;

interface Probe {
  readonly loadMs: number;
  readonly peakRssBytes: number;
}

/** Loads one embedder in a fresh process (bench/embed-probe.ts): first-load time and peak RSS, uncoloured by the others. */
function probe(kind: 'minilm' | 'minilm-int8' | 'use-lite' | 'hash'): Probe {
  const script = fileURLToPath(new URL('./embed-probe.ts', import.meta.url));
  const run = spawnSync(process.execPath, ['--import', 'tsx', script, kind], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`embed probe for ${kind} exited with ${String(run.status)}: ${run.stderr.slice(-2000)}`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '') as Probe;
}

interface ModelFigures {
  readonly id: string;
  readonly score: ParaphraseScore;
  readonly single: number;
  readonly batched: number;
  readonly probe: Probe;
}

async function paraphraseScore(embedder: Embedder): Promise<ParaphraseScore> {
  const [memories, distractors, questions] = await Promise.all([
    embedder.embed(PARAPHRASE_CASES.map((c) => c.memory)),
    embedder.embed(PARAPHRASE_CASES.map((c) => c.distractor)),
    embedder.embed(PARAPHRASE_CASES.map((c) => c.question)),
  ]);
  return scoreParaphrases(memories, distractors, questions);
}

/**
 * minilm's thread pool sleeping between runs (the server's setting) against spinning (a process that
 * only embeds: `hyphae worker`, `hyphae reembed`), calls of 64 back to back, each with the CPU it
 * took per text; the two alternate twice so both see the same load.
 */
async function spinningRows(texts: readonly string[]): Promise<BenchRow[]> {
  const sleeping = new MiniLmEmbedder();
  const spinning = new MiniLmEmbedder({ spinWhenIdle: true });
  const runs = { sleeping: { texts: 0, ms: 0, cpuMs: 0 }, spinning: { texts: 0, ms: 0, cpuMs: 0 } };
  const id = sleeping.modelId;
  try {
    await sleeping.embed(texts.slice(0, 64));
    await spinning.embed(texts.slice(0, 64));
    for (let round = 0; round < 2; round++) {
      for (const [name, embedder] of [['sleeping', sleeping], ['spinning', spinning]] as const) {
        const cpu = process.cpuUsage();
        const started = performance.now();
        for (let i = 0; i < texts.length; i += 64) await embedder.embed(texts.slice(i, i + 64));
        const used = process.cpuUsage(cpu);
        runs[name].texts += texts.length;
        runs[name].ms += performance.now() - started;
        runs[name].cpuMs += (used.user + used.system) / 1000;
      }
    }
  } finally {
    await sleeping.close();
    await spinning.close();
  }
  const rate = (r: { texts: number; ms: number }): number => r.texts / (r.ms / 1000);
  const cpuPerText = (r: { texts: number; cpuMs: number }): number => r.cpuMs / r.texts;
  const [sleep, spin] = [runs.sleeping, runs.spinning];
  return [
    {
      metric: `${id} calls of 64, threads spinning (worker, reembed)`,
      value: round(rate(spin)),
      unit: 'texts/s',
      baseline: round(rate(sleep)),
      ratio: ratio(rate(spin), rate(sleep)),
      note: 'baseline: threads sleeping between runs (the server); the two alternate',
    },
    {
      metric: `${id} CPU per text, threads spinning`,
      value: round(cpuPerText(spin)),
      unit: 'ms',
      baseline: round(cpuPerText(sleep)),
      ratio: ratio(cpuPerText(spin), cpuPerText(sleep)),
      note: 'baseline: threads sleeping; what spinning costs the other work of the process',
    },
  ];
}

async function measureModel(embedder: Embedder, kind: 'minilm' | 'use-lite', corpus: readonly string[]): Promise<ModelFigures> {
  const figures = { id: embedder.modelId, probe: probe(kind), score: await paraphraseScore(embedder) };
  await embedder.embed(corpus.slice(0, 64));
  const single = await embedThroughput(embedder, corpus.slice(0, MODEL_SINGLE_TEXTS), 1);
  const batched = await embedThroughput(embedder, corpus.slice(0, MODEL_TEXTS), 64);
  await embedder.close();
  return { ...figures, single, batched };
}

/**
 * Embedding alone, per embedder: recall quality on the paraphrase fixture (bench/paraphrase-fixture.ts),
 * throughput one text per call and in batches, first load and peak RSS in a fresh process.
 * Baselines: use-lite (the previous default) for minilm and hash; the hash-only process for RSS.
 */
export async function runEmbedBench(): Promise<BenchSection> {
  const corpus = syntheticCorpus(HASH_TEXTS, CORPUS_SEED);
  const rows: BenchRow[] = [];

  const hash = new HashEmbedder();
  await embedThroughput(hash, corpus.slice(0, 1_000), 256);
  const hashRate = await embedThroughput(hash, corpus, 256);
  rows.push({ metric: 'hash-512-v1 embed throughput', value: round(hashRate), unit: 'texts/s', note: `${HASH_TEXTS} texts, calls of 256` });
  const trigramRate = await embedThroughput(new HashEmbedder({ charTrigrams: true }), corpus, 256);
  rows.push({ metric: 'hash-512-v1-c3 (char trigrams) embed throughput', value: round(trigramRate), unit: 'texts/s', baseline: round(hashRate), ratio: ratio(trigramRate, hashRate) });
  const hashScore = await paraphraseScore(hash);
  const hashProbe = probe('hash');

  const useLite = await measureModel(new UseLiteEmbedder(), 'use-lite', corpus);
  const minilm = await measureModel(new MiniLmEmbedder(), 'minilm', corpus);
  const n = PARAPHRASE_CASES.length;
  const measures = [
    ['top1', 'top-1', `${n} questions among their ${n} memories`],
    ['top5', 'top-5', ''],
    ['top1WithDistractors', 'top-1 with near-miss distractors', `${n} questions among ${n} memories + ${n} distractors that share the question's words`],
    ['top5WithDistractors', 'top-5 with near-miss distractors', ''],
  ] as const;
  for (const [key, label, about] of measures) {
    for (const [name, score] of [
      [minilm.id, minilm.score],
      [useLite.id, useLite.score],
      [hash.modelId, hashScore],
    ] as const) {
      rows.push({ metric: `${name} paraphrase ${label}`, value: round(score[key]), unit: 'fraction', baseline: round(useLite.score[key]), ratio: ratio(score[key], useLite.score[key]), note: `${about}${about === '' ? '' : '; '}baseline use-lite` });
    }
  }
  for (const m of [minilm, useLite]) {
    rows.push({ metric: `${m.id} embed throughput, one text per call`, value: round(m.single), unit: 'texts/s', baseline: round(useLite.single), ratio: ratio(m.single, useLite.single), note: `${MODEL_SINGLE_TEXTS} texts; baseline use-lite` });
    rows.push({
      metric: `${m.id} embed throughput, calls of 64`,
      value: round(m.batched),
      unit: 'texts/s',
      baseline: round(useLite.batched),
      ratio: ratio(m.batched, useLite.batched),
      note: `${MODEL_TEXTS} texts, mean ${Math.round(meanLength(corpus.slice(0, MODEL_TEXTS)))} chars; baseline use-lite; ${ratio(m.batched, m.single)}× its one-per-call rate`,
    });
  }
  for (const m of [minilm, useLite]) {
    rows.push({ metric: `${m.id} model load (fresh process)`, value: round(m.probe.loadMs), unit: 'ms', baseline: round(useLite.probe.loadMs), ratio: ratio(m.probe.loadMs, useLite.probe.loadMs), note: 'import + weights + session + one text; baseline use-lite' });
  }
  const int8Probe = probe('minilm-int8');
  rows.push({ metric: 'all-minilm-l6-v2-int8 model load (fresh process)', value: round(int8Probe.loadMs), unit: 'ms', baseline: round(useLite.probe.loadMs), ratio: ratio(int8Probe.loadMs, useLite.probe.loadMs), note: 'import + weights + session + one text; baseline use-lite' });
  for (const [name, p] of [
    [minilm.id, minilm.probe],
    ['all-minilm-l6-v2-int8', int8Probe],
    [useLite.id, useLite.probe],
  ] as const) {
    rows.push({ metric: `${name} peak RSS (fresh process)`, value: round(p.peakRssBytes / 2 ** 20), unit: 'MiB', baseline: round(hashProbe.peakRssBytes / 2 ** 20), ratio: ratio(p.peakRssBytes, hashProbe.peakRssBytes), note: 'after loading and embedding 64 texts; baseline: the same process with the hash embedder' });
  }
  rows.push(...(await spinningRows(corpus.slice(0, MODEL_TEXTS))));
  rows.push(...(await miniLmPrecisionRows(corpus)));
  rows.push({ metric: 'hash speed-up over minilm (batched)', value: ratio(hashRate, minilm.batched), unit: 'x', baseline: round(minilm.batched), ratio: ratio(hashRate, minilm.batched) });
  return { name: 'embedding only', rows };
}

function meanLength(texts: readonly string[]): number {
  return texts.reduce((sum, text) => sum + text.length, 0) / Math.max(1, texts.length);
}

function round(value: number): number {
  return roundTo(value, 3);
}

function ratio(value: number, baseline: number): number {
  return roundTo(value / baseline, 2);
}
