import { describe, expect, it } from 'vitest';
import { meanPoolNormalized } from './mean-pooling.js';

describe('meanPoolNormalized', () => {
  it('averages only the unmasked tokens of each row, then scales to unit length', () => {
    // Two rows of three tokens, dimension 2. Row 0: tokens (3,0), (1,4) and padding (100,-50).
    // Mean (2,2) → (1/√2, 1/√2). Row 1: all three tokens: (0,3), (0,6), (0,-3) → mean (0,2) → (0,1).
    const hidden = Float32Array.from([3, 0, 1, 4, 100, -50, 0, 3, 0, 6, 0, -3]);
    const [a, b] = meanPoolNormalized(hidden, [1, 1, 0, 1n, 1n, 1n], 2, 3, 2);
    expect(a?.[0]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(a?.[1]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(Array.from(b ?? [])).toEqual([0, 1]);
  });

  it('gives the known vector of a 3-d example: mean (1, 2, 2) has length 3', () => {
    const hidden = Float32Array.from([2, 4, 0, 0, 0, 4, 9, 9, 9]);
    const [v] = meanPoolNormalized(hidden, [1, 1, 0], 1, 3, 3);
    expect(Array.from(v ?? []).map((x) => Math.round(x * 1e6) / 1e6)).toEqual([0.333333, 0.666667, 0.666667]);
  });

  it('pools an all-padding row to zeros instead of NaN', () => {
    const [v] = meanPoolNormalized(Float32Array.from([5, 5]), [0], 1, 1, 2);
    expect(Array.from(v ?? [])).toEqual([0, 0]);
  });

  it('refuses shapes that do not match the data', () => {
    expect(() => meanPoolNormalized(new Float32Array(5), [1, 1], 1, 2, 2)).toThrow(RangeError);
    expect(() => meanPoolNormalized(new Float32Array(4), [1], 1, 2, 2)).toThrow(RangeError);
  });
});
