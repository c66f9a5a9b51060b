import { describe, expect, it } from 'vitest';
import { splitIntoChunks } from './text-chunks.js';

describe('splitIntoChunks', () => {
  it('keeps a short text whole and turns an empty one into a single space', () => {
    expect(splitIntoChunks('short text', 10)).toEqual(['short text']);
    expect(splitIntoChunks('', 10)).toEqual([' ']);
    expect(splitIntoChunks('   \n', 10)).toEqual([' ']);
  });

  it('cuts at whitespace near the limit, loses no character, and respects the limit', () => {
    const text = 'alpha beta gamma delta epsilon zeta eta theta iota kappa';
    const chunks = splitIntoChunks(text, 12);
    expect(chunks.join('')).toBe(text);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(12);
    expect(chunks[0]).toBe('alpha beta');
  });

  it('hard-cuts a long word without splitting a surrogate pair', () => {
    const text = `${'x'.repeat(9)}🙂${'y'.repeat(9)}`;
    const chunks = splitIntoChunks(text, 10);
    expect(chunks.join('')).toBe(text);
    expect(chunks[0]).toBe('x'.repeat(9));
    expect(chunks[1]?.startsWith('🙂')).toBe(true);
  });
});
