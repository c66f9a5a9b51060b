import { VectorFormatError } from './errors.js';

/**
 * Vectors travel between Node and PostgreSQL as pgvector text ('[0.1,-2,3e-7]') on both drivers:
 * bind with `$n::vector`, read back with `embedding::text` when needed.
 */
export function toVectorText(vector: Float32Array | readonly number[]): string {
  const length = vector.length;
  if (length === 0) throw new VectorFormatError('a vector needs at least one dimension');
  for (let i = 0; i < length; i++) {
    if (!Number.isFinite(vector[i])) throw new VectorFormatError(`vector component ${i} is not a finite number`);
  }
  return `[${vector.join(',')}]`;
}

/** Parses pgvector text back into a Float32Array. */
export function parseVectorText(text: string): Float32Array {
  const last = text.length - 1;
  if (text.charCodeAt(0) !== 91 || text.charCodeAt(last) !== 93) {
    throw new VectorFormatError('vector text must be enclosed in [ ]');
  }
  if (last === 1) return new Float32Array(0);
  const parts = text.slice(1, last).split(',');
  const out = new Float32Array(parts.length);
  for (let i = 0; i < parts.length; i++) {
    const value = Number(parts[i]);
    if (!Number.isFinite(value) || parts[i]?.trim() === '') {
      throw new VectorFormatError(`vector text component ${i} is not a number`);
    }
    out[i] = value;
  }
  return out;
}
