/** Turns texts into unit-length vectors of a fixed dimension, for one model. */
export interface Embedder {
  /** Stable id of the model and its version, recorded in the database (e.g. "use-lite-512"). */
  readonly modelId: string;
  readonly dimension: number;
  /** One vector per text, in order; each of length `dimension` and L2-normalised. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  close(): Promise<void>;
}

export const EMBEDDER_KINDS = ['use-lite', 'hash', 'openai', 'nats'] as const;
export type EmbedderKind = (typeof EMBEDDER_KINDS)[number];
