import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, UnavailableError } from '../core/errors.js';
import { USE_LITE_MAX_CHARS, UseLiteEmbedder } from './use-lite-embedder.js';
import { cosineSimilarity, dotProduct } from './vector-math.js';

const norm = (v: Float32Array): number => Math.sqrt(dotProduct(v, v));
const maxAbsDiff = (a: Float32Array, b: Float32Array): number => a.reduce((m, x, i) => Math.max(m, Math.abs(x - (b[i] ?? 0))), 0);

describe('UseLiteEmbedder', () => {
  const embedder = new UseLiteEmbedder({ batchSize: 3 });

  it('yields 512-d unit vectors under the model id use-lite-512', async () => {
    expect(embedder.modelId).toBe('use-lite-512');
    expect(embedder.dimension).toBe(512);
    const vectors = await embedder.embed(['We chose PostgreSQL for the ledger.', 'Rotate the TLS certificates monthly.']);
    expect(vectors).toHaveLength(2);
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v).toHaveLength(512);
      expect(norm(v)).toBeCloseTo(1, 4);
    }
  });

  it('is deterministic, and a batch split into forward passes equals one text at a time', async () => {
    const texts = ['alpha service', 'the checkout API times out', 'a', 'cache invalidation is hard', 'beta', 'alpha service', 'z'];
    const batched = await embedder.embed(texts);
    const again = await new UseLiteEmbedder({ batchSize: 64 }).embed(texts);
    for (const [i, text] of texts.entries()) {
      const [single] = await embedder.embed([text]);
      expect(maxAbsDiff(batched[i] as Float32Array, single as Float32Array)).toBeLessThan(1e-5);
      expect(maxAbsDiff(batched[i] as Float32Array, again[i] as Float32Array)).toBeLessThan(1e-5);
    }
    expect(maxAbsDiff(batched[0] as Float32Array, batched[5] as Float32Array)).toBe(0);
  });

  it('embeds empty, whitespace-only, very long and non-Latin input as finite unit vectors', async () => {
    const vectors = await embedder.embed(['', ' \n\t ', 'x'.repeat(32 * 1024), 'deploy '.repeat(5000), '日本語のテキスト', 'Ünïcödé straße 🙂']);
    for (const v of vectors) {
      expect(v).toHaveLength(512);
      expect(v.every(Number.isFinite)).toBe(true);
      expect(norm(v)).toBeCloseTo(1, 4);
    }
    expect(cosineSimilarity(vectors[0] as Float32Array, vectors[1] as Float32Array)).toBeCloseTo(1, 5);
  });

  it('embeds only the head of a very long text, as mean-pooled chunks', async () => {
    const head = 'The ledger service writes every payment to PostgreSQL before it acknowledges the request. '.repeat(60).slice(0, USE_LITE_MAX_CHARS);
    const [whole, headOnly] = await embedder.embed([`${head}${'unrelated trailing words '.repeat(200)}`, head]);
    expect(maxAbsDiff(whole as Float32Array, headOnly as Float32Array)).toBeLessThan(1e-5);
  });

  it('returns nothing for no texts and refuses work once closed', async () => {
    const own = new UseLiteEmbedder();
    expect(await own.embed([])).toEqual([]);
    await own.close();
    await expect(own.embed(['after close'])).rejects.toBeInstanceOf(UnavailableError);
  });

  it('rejects a batch size out of range with a typed error', () => {
    expect(() => new UseLiteEmbedder({ batchSize: 0 })).toThrow(InvalidArgumentError);
  });
});
