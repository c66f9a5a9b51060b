/** Turns texts into unit-length vectors of a fixed dimension, for one model. */
export interface Embedder {
  /** Stable id of the model and its version, recorded in the database (e.g. "use-lite-512"). */
  readonly modelId: string;
  readonly dimension: number;
  /** One vector per text, in order; each of length `dimension` and L2-normalised. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  close(): Promise<void>;
}

export { EMBEDDER_KINDS } from '../core/config.js';
export type { EmbedderKind } from '../core/config.js';
