/** Reports the latency and batch size of every embedding call to the process metrics. */
import type { Embedder } from './embedder.js';

export interface EmbedObserver {
  observeEmbed(seconds: number, batchSize: number): void;
}

export function meteredEmbedder(inner: Embedder, observer: EmbedObserver): Embedder {
  return {
    modelId: inner.modelId,
    dimension: inner.dimension,
    async embed(texts: readonly string[]): Promise<Float32Array[]> {
      const started = performance.now();
      const vectors = await inner.embed(texts);
      observer.observeEmbed((performance.now() - started) / 1000, texts.length);
      return vectors;
    },
    close: () => inner.close(),
  };
}
