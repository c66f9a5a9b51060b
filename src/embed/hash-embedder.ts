import { InvalidArgumentError } from '../core/errors.js';
import type { Embedder } from './embedder.js';
import { hashFeature } from './feature-hash.js';
import { l2Normalize } from './vector-math.js';

export const HASH_DEFAULT_DIMENSION = 512;

export interface HashEmbedderOptions {
  readonly dimension?: number;
  /** Adds character trigrams of each word: some robustness to inflections and typos, at a cost in speed. */
  readonly charTrigrams?: boolean;
}

// Letters and digits, with inner apostrophes/hyphens kept so "don't" and "pg-vector" stay one token.
const WORD = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;
const TRIGRAM_WEIGHT = 0.5;
// Stands in for a text with no words, so that every output is a unit vector.
const EMPTY_FEATURE = '\u0000empty';

/**
 * Deterministic feature hashing: unigrams and bigrams (optionally char trigrams) of the lower-cased
 * words, signed-hashed into `dimension` buckets with sublinear term frequency, L2-normalised.
 * No model: it matches shared words, never meaning.
 */
export class HashEmbedder implements Embedder {
  readonly modelId: string;
  readonly dimension: number;
  private readonly charTrigrams: boolean;

  constructor(options: HashEmbedderOptions = {}) {
    const dimension = options.dimension ?? HASH_DEFAULT_DIMENSION;
    if (!Number.isInteger(dimension) || dimension < 8 || dimension > 16_000) {
      throw new InvalidArgumentError('hash embedder dimension must be an integer in [8, 16000]', [
        { path: 'dimension', message: `got ${String(dimension)}` },
      ]);
    }
    this.dimension = dimension;
    this.charTrigrams = options.charTrigrams ?? false;
    this.modelId = `hash-${dimension}-v1${this.charTrigrams ? '-c3' : ''}`;
  }

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    return Promise.resolve(texts.map((text) => this.embedOne(text)));
  }

  embedOne(text: string): Float32Array {
    const counts = this.featureCounts(text);
    const vector = new Float32Array(this.dimension);
    for (const [feature, { count, weight }] of counts) {
      const h = hashFeature(feature);
      const bucket = h % this.dimension;
      // The bucket comes from the low bits (modulo); the sign from the top bit, independent of it.
      const sign = h >>> 31 === 1 ? -1 : 1;
      vector[bucket] = (vector[bucket] ?? 0) + sign * weight * (1 + Math.log(count));
    }
    return l2Normalize(vector);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  private featureCounts(text: string): Map<string, { count: number; weight: number }> {
    const counts = new Map<string, { count: number; weight: number }>();
    const add = (feature: string, weight: number): void => {
      const entry = counts.get(feature);
      if (entry) entry.count += 1;
      else counts.set(feature, { count: 1, weight });
    };
    const words = text.normalize('NFKC').toLowerCase().match(WORD) ?? [];
    for (let i = 0; i < words.length; i++) {
      const word = words[i] as string;
      add(`w\u0001${word}`, 1);
      if (i > 0) add(`b\u0001${words[i - 1] as string}\u0001${word}`, 1);
      if (this.charTrigrams) {
        const padded = `<${word}>`;
        for (let j = 0; j + 3 <= padded.length; j++) add(`c\u0001${padded.slice(j, j + 3)}`, TRIGRAM_WEIGHT);
      }
    }
    if (counts.size === 0) add(EMPTY_FEATURE, 1);
    return counts;
  }
}
