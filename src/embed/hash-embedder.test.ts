import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../core/errors.js';
import { HashEmbedder } from './hash-embedder.js';
import { cosineSimilarity, dotProduct } from './vector-math.js';

const norm = (v: Float32Array): number => Math.sqrt(dotProduct(v, v));

describe('HashEmbedder', () => {
  it('yields unit vectors of the configured dimension and names the model after it', async () => {
    const embedder = new HashEmbedder();
    expect(embedder.dimension).toBe(512);
    expect(embedder.modelId).toBe('hash-512-v1');
    const [v] = await embedder.embed(['Use PostgreSQL with pgvector for the memory store']);
    expect(v).toHaveLength(512);
    expect(norm(v as Float32Array)).toBeCloseTo(1, 5);
    const small = new HashEmbedder({ dimension: 64, charTrigrams: true });
    expect(small.modelId).toBe('hash-64-v1-c3');
    expect((await small.embed(['x']))[0]).toHaveLength(64);
  });

  it('is deterministic across instances', async () => {
    const text = 'The billing service must keep p99 latency under 50 ms.';
    const [a] = await new HashEmbedder().embed([text]);
    const [b] = await new HashEmbedder().embed([text]);
    expect(Array.from(a as Float32Array)).toEqual(Array.from(b as Float32Array));
  });

  it('gives a batch the same vectors as one text at a time', async () => {
    const embedder = new HashEmbedder({ charTrigrams: true });
    const texts = ['alpha beta', 'gamma delta epsilon', '', 'alpha beta'];
    const batch = await embedder.embed(texts);
    const single = await Promise.all(texts.map(async (t) => (await embedder.embed([t]))[0]));
    expect(batch.map((v) => Array.from(v))).toEqual(single.map((v) => Array.from(v as Float32Array)));
  });

  it('ignores case and punctuation but not word order (bigrams)', async () => {
    const embedder = new HashEmbedder();
    const [a, b, c] = await embedder.embed(['Cache the API!', 'cache the api', 'the api cache']);
    expect(cosineSimilarity(a as Float32Array, b as Float32Array)).toBeCloseTo(1, 6);
    const reordered = cosineSimilarity(a as Float32Array, c as Float32Array);
    expect(reordered).toBeLessThan(0.99);
    expect(reordered).toBeGreaterThan(0.3);
  });

  it('embeds empty, whitespace-only, very long and non-Latin input as unit vectors', async () => {
    const embedder = new HashEmbedder();
    const long = 'word '.repeat(20_000);
    const vectors = await embedder.embed(['', '   \n\t', long, '日本語のテキスト', 'Ünïcödé straße 🙂', '🙂']);
    for (const v of vectors) {
      expect(v).toHaveLength(512);
      expect(norm(v)).toBeCloseTo(1, 5);
      expect(v.every(Number.isFinite)).toBe(true);
    }
    expect(cosineSimilarity(vectors[0] as Float32Array, vectors[1] as Float32Array)).toBeCloseTo(1, 6);
    expect(cosineSimilarity(vectors[3] as Float32Array, vectors[4] as Float32Array)).toBeLessThan(0.5);
  });

  it('rejects an unusable dimension with a typed error', () => {
    expect(() => new HashEmbedder({ dimension: 3 })).toThrow(InvalidArgumentError);
    expect(() => new HashEmbedder({ dimension: 100.5 })).toThrow(InvalidArgumentError);
  });
});
