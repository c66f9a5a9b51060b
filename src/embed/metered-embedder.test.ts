import { describe, expect, it } from 'vitest';
import { UnavailableError } from '../core/errors.js';
import type { Embedder } from './embedder.js';
import { HashEmbedder } from './hash-embedder.js';
import { meteredEmbedder } from './metered-embedder.js';

describe('meteredEmbedder', () => {
  it('passes vectors through unchanged and reports one observation per call with its batch size', async () => {
    const inner = new HashEmbedder();
    const seen: { seconds: number; batch: number }[] = [];
    const metered = meteredEmbedder(inner, { observeEmbed: (seconds, batch) => seen.push({ seconds, batch }), countEmbedError: () => undefined });
    expect(metered.modelId).toBe(inner.modelId);
    expect(metered.dimension).toBe(inner.dimension);
    const texts = ['alpha beta', 'gamma delta', 'epsilon'];
    const [direct, measured] = [await inner.embed(texts), await metered.embed(texts)];
    expect(measured.map((v) => Array.from(v))).toEqual(direct.map((v) => Array.from(v)));
    expect(seen).toHaveLength(1);
    expect(seen[0]?.batch).toBe(3);
    expect(seen[0]?.seconds).toBeGreaterThanOrEqual(0);
  });

  it('counts a failed call by its error code, an unexpected error as INTERNAL, and rethrows it', async () => {
    const codes: string[] = [];
    const failing = (error: Error): Embedder => ({ modelId: 'm', dimension: 2, embed: () => Promise.reject(error), close: () => Promise.resolve() });
    const observer = { observeEmbed: (): void => undefined, countEmbedError: (code: string): void => void codes.push(code) };
    const noWorker = new UnavailableError('no embedding worker answered');
    await expect(meteredEmbedder(failing(noWorker), observer).embed(['x'])).rejects.toBe(noWorker);
    await expect(meteredEmbedder(failing(new TypeError('boom')), observer).embed(['x'])).rejects.toThrow('boom');
    expect(codes).toEqual(['UNAVAILABLE', 'INTERNAL']);
  });
});
