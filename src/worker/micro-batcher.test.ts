import { describe, expect, it } from 'vitest';
import { UnavailableError } from '../core/errors.js';
import type { Embedder } from '../embed/embedder.js';
import { HashEmbedder } from '../embed/hash-embedder.js';
import { MicroBatcher } from './micro-batcher.js';

/** A real hash embedder that records the size of every call it gets, and can be told to fail on a text. */
class RecordingEmbedder implements Embedder {
  readonly calls: number[] = [];
  private readonly inner = new HashEmbedder({ dimension: 64 });
  readonly modelId = this.inner.modelId;
  readonly dimension = this.inner.dimension;
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.calls.push(texts.length);
    if (texts.includes('fail')) throw new UnavailableError('asked to fail');
    return this.inner.embed(texts);
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

const asArrays = (vectors: Float32Array[]): number[][] => vectors.map((v) => Array.from(v));

describe('MicroBatcher', () => {
  it('embeds requests arriving together as one call and gives each request exactly its own vectors', async () => {
    const embedder = new RecordingEmbedder();
    const batcher = new MicroBatcher(embedder, { maxBatchTexts: 64, maxWaitMs: 20 });
    const requests = [['a b'], ['c', 'd e'], ['f'], ['g h i', 'j', 'k']];
    const results = await Promise.all(requests.map((texts) => batcher.submit(texts)));
    expect(embedder.calls).toEqual([7]);
    for (const [i, texts] of requests.entries()) {
      expect(asArrays(results[i] as Float32Array[])).toEqual(asArrays(await new HashEmbedder({ dimension: 64 }).embed(texts)));
    }
  });

  it('never puts more than maxBatchTexts in a call, except a single request larger than that', async () => {
    const embedder = new RecordingEmbedder();
    const batcher = new MicroBatcher(embedder, { maxBatchTexts: 4, maxWaitMs: 20 });
    const sizes = [3, 2, 1, 4, 6, 1];
    const results = await Promise.all(sizes.map((n, r) => batcher.submit(Array.from({ length: n }, (_, i) => `r${r} t${i}`))));
    expect(results.map((vectors) => vectors.length)).toEqual(sizes);
    expect(embedder.calls.reduce((a, b) => a + b, 0)).toBe(17);
    for (const call of embedder.calls) expect(call === 6 || call <= 4).toBe(true);
  });

  it('fails only the requests of a failed batch', async () => {
    const embedder = new RecordingEmbedder();
    const batcher = new MicroBatcher(embedder, { maxBatchTexts: 2, maxWaitMs: 5 });
    const [bad, good] = await Promise.allSettled([batcher.submit(['ok', 'fail']), batcher.submit(['fine'])]);
    expect(bad?.status).toBe('rejected');
    expect(good?.status).toBe('fulfilled');
  });

  it('refuses work UNAVAILABLE beyond its queue bound, and accepts it again once the queue drains', async () => {
    const batcher = new MicroBatcher(new RecordingEmbedder(), { maxBatchTexts: 64, maxWaitMs: 10, maxQueuedTexts: 3 });
    const accepted = [batcher.submit(['a', 'b']), batcher.submit(['c'])];
    await expect(batcher.submit(['d'])).rejects.toBeInstanceOf(UnavailableError);
    expect((await Promise.all(accepted)).map((v) => v.length)).toEqual([2, 1]);
    expect(await batcher.submit(['e', 'f', 'g', 'h'])).toHaveLength(4);
  });

  it('drain answers everything accepted, then refuses new work', async () => {
    const embedder = new RecordingEmbedder();
    const batcher = new MicroBatcher(embedder, { maxBatchTexts: 3, maxWaitMs: 10_000 });
    const pending = [batcher.submit(['x']), batcher.submit(['y', 'z']), batcher.submit(['w'])];
    expect(batcher.queueDepth).toBeGreaterThan(0);
    await batcher.drain();
    const settled = await Promise.all(pending);
    expect(settled.map((v) => v.length)).toEqual([1, 2, 1]);
    expect(batcher.queueDepth).toBe(0);
    await expect(batcher.submit(['late'])).rejects.toBeInstanceOf(UnavailableError);
  });
});
