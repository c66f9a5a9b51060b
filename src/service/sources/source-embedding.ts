/**
 * Embeds a source's chunk texts in batches with a bounded number in flight: with embedding workers
 * on the mesh (NatsEmbedder) each batch is one request to the workers' queue group, so the batches
 * in flight spread over the workers; in-process they queue on the one embedder.
 */
import { UnavailableError } from '../../core/errors.js';
import type { Embedder } from '../../embed/embedder.js';

export interface ChunkEmbedding {
  /** Texts per embedder call. */
  readonly batch: number;
  /** Calls in flight at once. */
  readonly concurrency: number;
}

/** The texts' vectors, in order, as the embedder returned them (each caller binds them as it needs); a short reply from the embedder is UNAVAILABLE. */
export async function embedChunkTexts(
  embedder: Embedder,
  texts: readonly string[],
  options: ChunkEmbedding,
  onBatch: (first: number, vectors: readonly Float32Array[]) => Promise<void> = async () => undefined,
): Promise<Float32Array[]> {
  const vectors: Float32Array[] = new Array<Float32Array>(texts.length);
  const starts: number[] = [];
  for (let at = 0; at < texts.length; at += Math.max(1, options.batch)) starts.push(at);
  let next = 0;
  let failed = false;
  const lane = async (): Promise<void> => {
    while (next < starts.length && !failed) {
      const first = starts[next] as number;
      next += 1;
      const slice = texts.slice(first, first + Math.max(1, options.batch));
      const embedded = await embedder.embed(slice).catch((error: unknown) => {
        // The other lanes stop taking batches: the call fails as a whole.
        failed = true;
        throw error;
      });
      if (embedded.length !== slice.length) throw new UnavailableError('the embedder returned fewer vectors than texts');
      embedded.forEach((vector, i) => (vectors[first + i] = vector));
      await onBatch(first, embedded);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, starts.length)) }, lane));
  return vectors;
}
