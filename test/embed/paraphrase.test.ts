import { describe, expect, it } from 'vitest';
import { syntheticCorpus } from '../../bench/corpus.js';
import type { Embedder } from '../../src/embed/embedder.js';
import { HashEmbedder } from '../../src/embed/hash-embedder.js';
import { UseLiteEmbedder } from '../../src/embed/use-lite-embedder.js';
import { dotProduct } from '../../src/embed/vector-math.js';

// The paraphrase shares no word with the query: only a model of meaning can connect them.
const QUERY = 'How do I reset my password?';
const PARAPHRASE = 'Steps to recover a forgotten login credential';
const UNRELATED = 'The database migration runs every night at 2am';
const DISTRACTORS = syntheticCorpus(100, 7);

interface ParaphraseOutcome {
  readonly paraphrase: number;
  readonly unrelated: number;
  /** Position of the paraphrase when the query ranks it among 100 engineering-memory distractors (0 = first). */
  readonly rank: number;
}

async function measure(embedder: Embedder): Promise<ParaphraseOutcome> {
  const [query, ...vectors] = await embedder.embed([QUERY, PARAPHRASE, UNRELATED, ...DISTRACTORS]);
  const similarities = vectors.map((v) => dotProduct(query as Float32Array, v));
  const paraphrase = similarities[0] as number;
  return { paraphrase, unrelated: similarities[1] as number, rank: similarities.filter((s) => s > paraphrase).length };
}

describe('paraphrase recall: use-lite finds it, hash misses it', () => {
  it('use-lite ranks the paraphrase first, well above an unrelated sentence', async () => {
    const outcome = await measure(new UseLiteEmbedder());
    expect(outcome.paraphrase - outcome.unrelated).toBeGreaterThan(0.15);
    expect(outcome.rank).toBe(0);
  });

  it('hash sees no likeness in the same paraphrase (no shared words) and ranks it among noise', async () => {
    const outcome = await measure(new HashEmbedder());
    expect(Math.abs(outcome.paraphrase)).toBeLessThan(0.1);
    expect(outcome.rank).toBeGreaterThan(0);
  });
});
