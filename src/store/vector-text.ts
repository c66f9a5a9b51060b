import { VectorFormatError } from './errors.js';

/**
 * pgvector's text form ('[0.1,-2,3e-7]'): how vectors are read back (`embedding::text`), and how the
 * bulk paths (reembed, the benches' loaders) and PGlite's own `query` bind them; statements bind the
 * binary form of src/store/vector-param.ts. The numbers are checked in one pass and formatted by the array's own join, which builds one flat
 * string (the same text): concatenation built a rope of 2×dimension pieces that the driver flattened
 * again to measure it — 15–25% slower for the hash embedder's sparse 512-d vectors, on par for dense
 * ones, measured side by side; JSON.stringify was ~4× slower.
 */
export function toVectorText(vector: Float32Array | readonly number[]): string {
  const length = vector.length;
  if (length === 0) throw new VectorFormatError('a vector needs at least one dimension');
  for (let i = 0; i < length; i++) {
    if (!Number.isFinite(vector[i] as number)) throw new VectorFormatError(`vector component ${i} is not a finite number`);
  }
  return `[${vector.join(',')}]`;
}

/**
 * Parses pgvector text back into a Float32Array. pgvector's text form is a JSON array of numbers,
 * and JSON.parse measured ~1.5× faster than splitting on commas.
 */
export function parseVectorText(text: string): Float32Array {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new VectorFormatError('vector text is not a [n,n,…] list of numbers', { cause: error });
  }
  if (!Array.isArray(parsed)) throw new VectorFormatError('vector text must be enclosed in [ ]');
  const out = new Float32Array(parsed.length);
  for (let i = 0; i < parsed.length; i++) {
    const value: unknown = parsed[i];
    if (typeof value !== 'number') throw new VectorFormatError(`vector text component ${i} is not a number`);
    out[i] = value;
  }
  return out;
}
