/**
 * Extractive summary of a scene: every sentence of its cells is scored by centrality (cosine to
 * the centroid of all the scene's sentence embeddings, embedded in one batch) times the salience
 * weight of its cell (0.5 + salience); the best sentences are kept up to a length budget and
 * returned in their original order. Type: the scene's dominant type (largest salience sum),
 * so the summary decays and gossips like what it summarises. Salience: the highest of its cells.
 */
import { CELL_TYPES, type CellType } from '../../core/cell-types.js';
import type { Embedder } from '../../embed/embedder.js';
import type { SceneSummarizer, SceneSummary, SceneSummaryInput } from './scene-summarizer.js';

interface Sentence {
  readonly text: string;
  readonly order: number;
  readonly salience: number;
}

const SENTENCE_BREAK = /(?<=[.!?])\s+|\n+/;

export class ExtractiveSceneSummarizer implements SceneSummarizer {
  constructor(
    private readonly embedder: Embedder,
    private readonly budgetChars: number,
  ) {}

  async summarize(input: SceneSummaryInput): Promise<SceneSummary> {
    const sentences = splitSentences(input);
    const vectors = await this.embedder.embed(sentences.map((s) => s.text));
    const centroid = normalise(mean(vectors, this.embedder.dimension));
    const ranked = sentences
      .map((sentence, i) => ({ sentence, score: dot(vectors[i], centroid) * (0.5 + sentence.salience) }))
      .sort((a, b) => b.score - a.score || a.sentence.order - b.sentence.order);
    const chosen: Sentence[] = [];
    let length = 0;
    for (const { sentence } of ranked) {
      const added = sentence.text.length + (chosen.length > 0 ? 1 : 0);
      if (length + added > this.budgetChars) continue;
      chosen.push(sentence);
      length += added;
    }
    const first = ranked[0]?.sentence;
    if (chosen.length === 0 && first !== undefined) chosen.push({ ...first, text: Array.from(first.text).slice(0, this.budgetChars).join('') });
    const content = chosen
      .sort((a, b) => a.order - b.order)
      .map((s) => s.text)
      .join(' ');
    return { content, cellType: dominantType(input), salience: Math.max(...input.cells.map((c) => c.salience)) };
  }
}

function splitSentences(input: SceneSummaryInput): Sentence[] {
  const seen = new Set<string>();
  const sentences: Sentence[] = [];
  for (const cell of input.cells) {
    for (const part of cell.content.split(SENTENCE_BREAK)) {
      const text = part.trim();
      if (text.length === 0 || seen.has(text)) continue;
      seen.add(text);
      sentences.push({ text, order: sentences.length, salience: cell.salience });
    }
  }
  return sentences;
}

function dominantType(input: SceneSummaryInput): CellType {
  const weight = new Map<CellType, number>();
  for (const cell of input.cells) weight.set(cell.cellType, (weight.get(cell.cellType) ?? 0) + cell.salience + 1e-6);
  let best: CellType = 'Context';
  let bestWeight = -1;
  for (const type of CELL_TYPES) {
    const w = weight.get(type) ?? 0;
    if (w > bestWeight) {
      best = type;
      bestWeight = w;
    }
  }
  return best;
}

function mean(vectors: readonly Float32Array[], dimension: number): Float32Array {
  const sum = new Float32Array(dimension);
  for (const v of vectors) for (let i = 0; i < dimension; i++) sum[i] = (sum[i] ?? 0) + (v[i] ?? 0);
  return sum;
}

function normalise(v: Float32Array): Float32Array {
  const norm = Math.sqrt(dot(v, v));
  return norm === 0 ? v : v.map((x) => x / norm);
}

function dot(a: Float32Array | undefined, b: Float32Array): number {
  if (a === undefined) return 0;
  let s = 0;
  for (let i = 0; i < b.length; i++) s += (a[i] ?? 0) * (b[i] ?? 0);
  return s;
}
