import { describe, expect, it } from 'vitest';
import { HashEmbedder } from './hash-embedder.js';
import { meteredEmbedder } from './metered-embedder.js';

describe('meteredEmbedder', () => {
  it('passes vectors through unchanged and reports one observation per call with its batch size', async () => {
    const inner = new HashEmbedder();
    const seen: { seconds: number; batch: number }[] = [];
    const metered = meteredEmbedder(inner, { observeEmbed: (seconds, batch) => seen.push({ seconds, batch }) });
    expect(metered.modelId).toBe(inner.modelId);
    expect(metered.dimension).toBe(inner.dimension);
    const texts = ['alpha beta', 'gamma delta', 'epsilon'];
    const [direct, measured] = [await inner.embed(texts), await metered.embed(texts)];
    expect(measured.map((v) => Array.from(v))).toEqual(direct.map((v) => Array.from(v)));
    expect(seen).toHaveLength(1);
    expect(seen[0]?.batch).toBe(3);
    expect(seen[0]?.seconds).toBeGreaterThanOrEqual(0);
  });
});
