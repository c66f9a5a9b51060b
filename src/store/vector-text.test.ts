import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VectorFormatError } from './errors.js';
import { parseVectorText, toVectorText } from './vector-text.js';

describe('vector text', () => {
  it('formats pgvector text', () => {
    expect(toVectorText([1, -2.5, 3e-7])).toBe('[1,-2.5,3e-7]');
    expect(toVectorText(Float32Array.of(0.5, 0))).toBe('[0.5,0]');
  });

  it('round-trips every finite float32 vector exactly', () => {
    // -0 prints as 0, which is the same vector for every distance pgvector computes.
    const component = fc.float({ noNaN: true, noDefaultInfinity: true }).map((x) => (x === 0 ? 0 : x));
    fc.assert(
      fc.property(fc.array(component, { minLength: 1, maxLength: 64 }), (values) => {
        const vector = Float32Array.from(values);
        expect(parseVectorText(toVectorText(vector))).toEqual(vector);
      }),
    );
  });

  it('parses what pgvector prints, including exponents and an empty vector', () => {
    expect(Array.from(parseVectorText('[1,-0.5,1e-05,2.5e+20]'))).toEqual([1, -0.5, Math.fround(1e-5), Math.fround(2.5e20)]);
    expect(parseVectorText('[]')).toEqual(new Float32Array(0));
  });

  it('refuses vectors pgvector would reject', () => {
    expect(() => toVectorText([])).toThrow(VectorFormatError);
    expect(() => toVectorText([1, Number.NaN])).toThrow('vector component 1 is not a finite number');
    expect(() => toVectorText(Float32Array.of(Number.POSITIVE_INFINITY))).toThrow(VectorFormatError);
  });

  it('refuses text that is not a vector', () => {
    for (const bad of ['', '1,2', '{"a":1}', '[1,"x"]', '[1,,2]', '[1,null]']) {
      expect(() => parseVectorText(bad)).toThrow(VectorFormatError);
    }
  });
});
