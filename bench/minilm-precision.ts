/**
 * minilm fp32 (the default) against int8, for the embed bench (docs/embeddings.md, "Parity with the
 * reference"): each one's parity with the reference implementation on the held-out fixture (lowest
 * cosine to the reference vector, texts below 0.99, questions whose exact-cosine top-1 differs from
 * the reference's), and the speed fp32 costs — one text per call and calls of 64, wall clock and
 * CPU per text, fp32 and int8 alternating in one process so both see the same load.
 */
import { MiniLmEmbedder } from '../src/embed/minilm-embedder.js';
import { cosineSimilarity, dotProduct } from '../src/embed/vector-math.js';
import { loadParityFixture, type ParityFixture } from '../test/support/minilm-parity-fixture.js';
import { alternate } from './harness/alternate.js';
import { roundTo } from './harness/measure.js';
import type { BenchRow } from './harness/section.js';

const ROUNDS = Number(process.env.BENCH_MINILM_ROUNDS ?? 3);
const SINGLE_TEXTS = 64;
const BATCHED_TEXTS = 512;

interface Parity {
  readonly lowestCosine: number;
  readonly below099: number;
  readonly top1Differs: number;
}

async function parityOf(embedder: MiniLmEmbedder, fixture: ParityFixture): Promise<Parity> {
  const vectors = await embedder.embed(fixture.texts.map((t) => t.text));
  const cosines = fixture.texts.map((t, i) => cosineSimilarity(vectors[i] as Float32Array, t.reference));
  const memories = vectors.slice(0, fixture.memories.length);
  const questions = vectors.slice(fixture.memories.length, fixture.memories.length + fixture.questions.length);
  const top1Differs = fixture.questions.filter((q, i) => {
    const scores = memories.map((m) => dotProduct(m, questions[i] as Float32Array));
    return scores.indexOf(Math.max(...scores)) !== q.referenceTop1;
  }).length;
  return { lowestCosine: Math.min(...cosines), below099: cosines.filter((c) => c < 0.99).length, top1Differs };
}

interface Run {
  readonly ms: number;
  readonly cpuMs: number;
}

async function timed(embedder: MiniLmEmbedder, texts: readonly string[], callSize: number): Promise<Run> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < texts.length; i += callSize) await embedder.embed(texts.slice(i, i + callSize));
  const used = process.cpuUsage(cpu);
  return { ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/** Parity and speed rows of fp32 (value) against int8 (baseline). */
export async function miniLmPrecisionRows(corpus: readonly string[]): Promise<BenchRow[]> {
  const fixture = await loadParityFixture();
  const fp32 = new MiniLmEmbedder();
  const int8 = new MiniLmEmbedder({ precision: 'int8' });
  try {
    const parity = { fp32: await parityOf(fp32, fixture), int8: await parityOf(int8, fixture) };
    const texts = fixture.texts.length;
    const rows: BenchRow[] = [
      { metric: 'minilm fp32 lowest cosine to the reference', value: roundTo(parity.fp32.lowestCosine, 5), unit: 'cosine', baseline: roundTo(parity.int8.lowestCosine, 5), note: `${texts} texts of the parity fixture; baseline int8` },
      { metric: 'minilm fp32 texts below cosine 0.99', value: parity.fp32.below099, unit: 'texts', baseline: parity.int8.below099, note: `of ${texts}; baseline int8` },
      { metric: 'minilm fp32 questions whose top-1 differs from the reference', value: parity.fp32.top1Differs, unit: 'questions', baseline: parity.int8.top1Differs, note: `of ${fixture.questions.length}, exact cosine over ${fixture.memories.length} memories; baseline int8` },
    ];
    const shapes = [
      ['one text per call', corpus.slice(0, SINGLE_TEXTS), 1],
      ['calls of 64', corpus.slice(0, BATCHED_TEXTS), 64],
    ] as const;
    for (const [label, slice, callSize] of shapes) {
      await timed(fp32, slice.slice(0, 64), callSize);
      await timed(int8, slice.slice(0, 64), callSize);
      const runs = await alternate({ fp32: () => timed(fp32, slice, callSize), int8: () => timed(int8, slice, callSize) }, ROUNDS);
      const perText = (side: readonly Run[], pick: (run: Run) => number): number => median(side.map(pick)) / slice.length;
      for (const [what, pick, unit] of [
        ['wall clock', (run: Run): number => run.ms, 'ms'],
        ['CPU', (run: Run): number => run.cpuMs, 'ms'],
      ] as const) {
        const [value, baseline] = [perText(runs.fp32, pick), perText(runs.int8, pick)];
        rows.push({ metric: `minilm fp32 ${what} per text, ${label}`, value: roundTo(value, 3), unit, baseline: roundTo(baseline, 3), ratio: roundTo(value / baseline, 2), note: `${slice.length} texts, median of ${ROUNDS} alternating rounds; baseline int8` });
      }
    }
    return rows;
  } finally {
    await fp32.close();
    await int8.close();
  }
}
