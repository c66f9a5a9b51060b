/** The embedders a bench may name (BENCH_*_EMBEDDERS): hash (no model), minilm (the default), use-lite. */
import type { Embedder } from '../../src/embed/embedder.js';
import { HashEmbedder } from '../../src/embed/hash-embedder.js';
import { MiniLmEmbedder } from '../../src/embed/minilm-embedder.js';
import { UseLiteEmbedder } from '../../src/embed/use-lite-embedder.js';
import { elapsedMs, perSecond } from './measure.js';

export function benchEmbedder(kind: string, setting = 'the embedder'): Embedder {
  if (kind === 'minilm') return new MiniLmEmbedder();
  if (kind === 'use-lite') return new UseLiteEmbedder();
  if (kind === 'hash') return new HashEmbedder();
  throw new Error(`${setting}: unknown embedder ${kind}`);
}

/** Texts per second embedding `texts` in sequential calls of `callSize`. */
export async function embedThroughput(embedder: Embedder, texts: readonly string[], callSize: number): Promise<number> {
  const ms = await elapsedMs(async () => {
    for (let i = 0; i < texts.length; i += callSize) await embedder.embed(texts.slice(i, i + callSize));
  });
  return perSecond(texts.length, ms);
}

/** An embedder that answers the texts given with their precomputed vectors: a store's CPU without the model's. */
export function precomputedEmbedder(modelId: string, texts: readonly string[], vectors: readonly Float32Array[]): Embedder {
  const byText = new Map(texts.map((text, i) => [text, vectors[i] as Float32Array]));
  const dimension = (vectors[0] as Float32Array).length;
  return {
    modelId,
    dimension,
    embed: (batch) => Promise.resolve(batch.map((text) => byText.get(text) ?? new Float32Array(dimension))),
    close: () => Promise.resolve(),
  };
}
