import type { Embedder } from '../../src/embed/embedder.js';
import { HashEmbedder } from '../../src/embed/hash-embedder.js';

/**
 * The real hash embedder, with each call held for `delayMs` and reported to `onCall` first:
 * lets a test know a worker is holding work, so a kill or a shutdown lands mid-request.
 */
export class DelayedHashEmbedder implements Embedder {
  private readonly inner = new HashEmbedder();
  readonly modelId = this.inner.modelId;
  readonly dimension = this.inner.dimension;
  calls = 0;

  constructor(
    private readonly delayMs: number,
    private readonly onCall: (texts: number) => void = () => undefined,
  ) {}

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.calls += 1;
    this.onCall(texts.length);
    await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    return this.inner.embed(texts);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
