import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidArgumentError, UnavailableError } from '../core/errors.js';
import { MINILM_MAX_WINDOWS, MINILM_WINDOW_TOKENS, miniLmPrecisionOf, MiniLmEmbedder } from './minilm-embedder.js';
import { defaultMiniLmModelDir, MINILM_FILE_SHA256 } from './minilm-model-files.js';
import { cosineSimilarity, dotProduct } from './vector-math.js';

interface ReferenceCase {
  readonly text: string;
  readonly vector: number[];
}
const reference = JSON.parse(await readFile(new URL('../../test/embed/fixtures/minilm-reference.json', import.meta.url), 'utf8')) as { cases: ReferenceCase[] };

const norm = (v: Float32Array): number => Math.sqrt(dotProduct(v, v));
const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs((a[i] ?? 0) - (b[i] ?? 0)));
  return max;
};
// 15 tokens.
const sentence = 'The ledger writes every payment to PostgreSQL before it acknowledges. ';

describe('MiniLmEmbedder', () => {
  const embedder = new MiniLmEmbedder();
  const int8 = new MiniLmEmbedder({ precision: 'int8' });
  const scratch: string[] = [];
  afterAll(async () => {
    await Promise.all(scratch.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('is fp32 by default, int8 when asked, each under its own model id', () => {
    expect([embedder.modelId, embedder.precision, embedder.dimension]).toEqual(['all-minilm-l6-v2', 'fp32', 384]);
    expect([int8.modelId, int8.precision, int8.dimension]).toEqual(['all-minilm-l6-v2-int8', 'int8', 384]);
    expect([miniLmPrecisionOf('all-minilm-l6-v2'), miniLmPrecisionOf('all-minilm-l6-v2-int8'), miniLmPrecisionOf('all-minilm')]).toEqual(['fp32', 'int8', undefined]);
  });

  it('int8: matches vectors computed independently with the int8 file (Rust tokenizers + ONNX Runtime in Python), all cases in one call', async () => {
    const vectors = await int8.embed(reference.cases.map((c) => c.text));
    reference.cases.forEach((c, i) => {
      const v = vectors[i] as Float32Array;
      expect(v).toHaveLength(384);
      expect(norm(v)).toBeCloseTo(1, 5);
      expect(maxAbsDiff(v, c.vector), c.text).toBeLessThan(2e-4);
      expect(cosineSimilarity(v, c.vector)).toBeGreaterThan(0.9999);
    });
  });

  it('puts a paraphrase nearer than an unrelated sentence', async () => {
    const [memory, question, unrelated] = await embedder.embed([
      'Sessions are kept in PostgreSQL, not Redis.',
      'which database holds user sessions?',
      'Rotate the TLS certificates every month.',
    ]);
    expect(cosineSimilarity(memory as Float32Array, question as Float32Array)).toBeGreaterThan(cosineSimilarity(memory as Float32Array, unrelated as Float32Array) + 0.2);
  });

  it('int8: embeds a text the same alone, in a call with others and in concurrent calls, one window per pass', async () => {
    const texts = ['alpha service', 'the checkout API times out under load', 'a', sentence.repeat(3), 'beta', 'alpha service', 'z'];
    const together = await int8.embed(texts);
    const own = new MiniLmEmbedder({ precision: 'int8' });
    const concurrent = await Promise.all(texts.map((text) => own.embed([text])));
    expect(own.forwardPasses).toBe(texts.length);
    for (const [i, text] of texts.entries()) {
      const [single] = await int8.embed([text]);
      expect(maxAbsDiff(together[i] as Float32Array, single as Float32Array)).toBe(0);
      expect(maxAbsDiff(together[i] as Float32Array, concurrent[i]?.[0] as Float32Array)).toBe(0);
    }
  });

  it('fp32: texts of one call share forward passes, and each vector is the one it has alone (float rounding aside)', async () => {
    const texts = ['alpha service', 'the checkout API times out under load', 'a', sentence.repeat(3), 'beta', 'alpha service', 'z'];
    const own = new MiniLmEmbedder();
    const together = await own.embed(texts);
    expect(own.forwardPasses).toBe(1);
    for (const [i, text] of texts.entries()) {
      const [single] = await embedder.embed([text]);
      expect(maxAbsDiff(together[i] as Float32Array, single as Float32Array)).toBeLessThan(1e-5);
    }
  });

  it('int8: with a batch size above 1, concurrent calls share forward passes and stay close to the exact vectors', async () => {
    const texts = ['alpha service', 'the checkout API times out under load', 'a', sentence.repeat(3), 'beta', 'z'];
    const exact = await int8.embed(texts);
    const batched = new MiniLmEmbedder({ precision: 'int8', batchSize: 64 });
    await batched.warmUp();
    const shared = await Promise.all(texts.map((text) => batched.embed([text])));
    expect(batched.forwardPasses).toBeLessThan(texts.length);
    shared.forEach(([v], i) => expect(cosineSimilarity(v as Float32Array, exact[i] as Float32Array)).toBeGreaterThan(0.95));
  });

  it(`embeds a text longer than ${MINILM_WINDOW_TOKENS} tokens as the token-weighted mean of its windows`, async () => {
    const long = `${sentence.repeat(80)}Unrelated closing words about gardening and tomatoes.`;
    const [whole] = await embedder.embed([long]);
    const [head] = await embedder.embed([sentence.repeat(4)]);
    // Several windows, all but the last about the ledger: the whole stays near the ledger sentence.
    expect(cosineSimilarity(whole as Float32Array, head as Float32Array)).toBeGreaterThan(0.9);
    expect(maxAbsDiff(whole as Float32Array, head as Float32Array)).toBeGreaterThan(1e-4);
  });

  it(`ignores what lies beyond ${MINILM_MAX_WINDOWS} windows`, async () => {
    // The sentence is 15 tokens: this fills every window.
    const limit = sentence.repeat(Math.ceil((MINILM_MAX_WINDOWS * (MINILM_WINDOW_TOKENS - 2)) / 15) + 1);
    const [atLimit, beyond] = await embedder.embed([limit, `${limit}${'gardening tomatoes compost '.repeat(100)}`]);
    // Float rounding aside: fp32 windows of the two texts may share passes differently.
    expect(maxAbsDiff(atLimit as Float32Array, beyond as Float32Array)).toBeLessThan(1e-6);
  });

  it('embeds empty, whitespace-only, huge and non-Latin input as finite unit vectors', async () => {
    const vectors = await embedder.embed(['', ' \n\t ', 'x'.repeat(32 * 1024), '日本語のテキスト'.repeat(500), 'Ünïcödé straße 🙂']);
    for (const v of vectors) {
      expect(v).toHaveLength(384);
      expect(v.every(Number.isFinite)).toBe(true);
      expect(norm(v)).toBeCloseTo(1, 4);
    }
    expect(cosineSimilarity(vectors[0] as Float32Array, vectors[1] as Float32Array)).toBeCloseTo(1, 5);
  });

  it('checks each file against its SHA-256 and the package SHA256SUMS lists the same', async () => {
    const sums = await readFile(join(defaultMiniLmModelDir(), 'SHA256SUMS'), 'utf8');
    expect(Object.fromEntries(sums.trim().split('\n').map((line) => line.split(/\s+/).reverse()))).toEqual(MINILM_FILE_SHA256);
    const dir = await mkdtemp(join(tmpdir(), 'hyphae-minilm-'));
    scratch.push(dir);
    await cp(defaultMiniLmModelDir(), dir, { recursive: true });
    const tokenizer = await readFile(join(dir, 'tokenizer.json'), 'utf8');
    await writeFile(join(dir, 'tokenizer.json'), tokenizer.replace('"[UNK]"', '"[UNKNOWN]"'));
    const damaged = new MiniLmEmbedder({ modelDir: dir });
    await expect(damaged.embed(['x'])).rejects.toThrow(/tokenizer\.json has SHA-256 [0-9a-f]{64}, expected da0e7993.*fetch-minilm-model/);
    await expect(damaged.embed(['x'])).rejects.toBeInstanceOf(UnavailableError);
  });

  it('returns nothing for no texts, refuses work once closed, and rejects bad options', async () => {
    const own = new MiniLmEmbedder();
    expect(await own.embed([])).toEqual([]);
    await own.close();
    await expect(own.embed(['after close'])).rejects.toBeInstanceOf(UnavailableError);
    expect(() => new MiniLmEmbedder({ batchSize: 0 })).toThrow(InvalidArgumentError);
    expect(() => new MiniLmEmbedder({ threads: 1.5 })).toThrow(InvalidArgumentError);
    expect(() => new MiniLmEmbedder({ precision: 'fp16' as 'fp32' })).toThrow(InvalidArgumentError);
  });
});
