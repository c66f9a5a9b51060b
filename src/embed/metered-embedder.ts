/** Reports the latency and batch size of every embedding call, and the code of every failed one, to the process metrics. */
import { HyphaeError } from '../core/errors.js';
import type { Embedder } from './embedder.js';

export interface EmbedObserver {
  observeEmbed(seconds: number, batchSize: number): void;
  countEmbedError(code: string): void;
}

export function meteredEmbedder(inner: Embedder, observer: EmbedObserver): Embedder {
  return {
    modelId: inner.modelId,
    dimension: inner.dimension,
    async embed(texts: readonly string[]): Promise<Float32Array[]> {
      const started = performance.now();
      let vectors: Float32Array[];
      try {
        vectors = await inner.embed(texts);
      } catch (error) {
        // Codes come from the error registry, so the label set stays bounded.
        observer.countEmbedError(error instanceof HyphaeError ? error.code : 'INTERNAL');
        throw error;
      }
      observer.observeEmbed((performance.now() - started) / 1000, texts.length);
      return vectors;
    },
    close: () => inner.close(),
  };
}
