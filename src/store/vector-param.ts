import { VectorFormatError } from './errors.js';
import { parseVectorText } from './vector-text.js';

/**
 * A vector bound as a statement parameter, in pgvector's binary form (what `vector_recv` reads:
 * int16 dimensions, int16 zero, then each component as a big-endian float4). Both drivers send a
 * byte-array parameter in binary format — `pg` a Buffer, PGlite's Bind any byte view — and
 * `$n::vector` receives it, so no number is printed in Node nor parsed back in PostgreSQL. The text
 * form cost 0.66 ms of CPU per 384-d minilm vector in PGlite against 0.015 ms for this, and a minilm
 * store binds its vector three times (the restatement probe, the INSERT, the beacon match).
 */
export type VectorParam = Buffer & { readonly __vectorParam: true };

/** pgvector's limit on dimensions (VECTOR_MAX_DIM). */
const MAX_DIMENSIONS = 16_000;

// The byte arrays made here, so a driver that binds text only can tell a vector from bytea.
const made = new WeakSet<Uint8Array>();

export function toVectorParam(vector: Float32Array | readonly number[]): VectorParam {
  const length = vector.length;
  if (length === 0) throw new VectorFormatError('a vector needs at least one dimension');
  if (length > MAX_DIMENSIONS) throw new VectorFormatError(`a vector has at most ${MAX_DIMENSIONS} dimensions, not ${length}`);
  const bytes = Buffer.allocUnsafe(4 + 4 * length);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  view.setInt16(0, length);
  view.setInt16(2, 0);
  for (let i = 0; i < length; i++) {
    const value = vector[i] as number;
    if (!Number.isFinite(value) || !Number.isFinite(Math.fround(value))) throw new VectorFormatError(`vector component ${i} is not a finite number`);
    view.setFloat32(4 + 4 * i, value);
  }
  made.add(bytes);
  return bytes as VectorParam;
}

export function isVectorParam(value: unknown): value is VectorParam {
  return value instanceof Uint8Array && made.has(value);
}

/** A vector read back as pgvector text (`embedding::text`), to bind again. */
export function vectorParamFromText(text: string): VectorParam {
  return toVectorParam(parseVectorText(text));
}

/** The components of a binary vector (for a driver that must bind text). */
export function vectorParamValues(param: Uint8Array): Float32Array {
  const view = new DataView(param.buffer, param.byteOffset, param.byteLength);
  const length = view.getInt16(0);
  if (length < 1 || param.byteLength !== 4 + 4 * length) throw new VectorFormatError('not a binary pgvector value');
  const out = new Float32Array(length);
  for (let i = 0; i < length; i++) out[i] = view.getFloat32(4 + 4 * i);
  return out;
}
