import { availableParallelism } from 'node:os';
import { InvalidArgumentError, UnavailableError } from '../core/errors.js';
import type { Embedder } from './embedder.js';
import { meanPoolNormalized } from './mean-pooling.js';
import { defaultMiniLmModelDir, readMiniLmModelFiles, type MiniLmPrecision } from './minilm-model-files.js';
import { tokenWindows } from './token-windows.js';

/** The default: the model's own fp32 weights, vectors equal to sentence-transformers' (docs/embeddings.md, "Parity with the reference"). */
export const MINILM_MODEL_ID = 'all-minilm-l6-v2';
/** The int8 quantization: ≈2.4× less CPU per single text, half the file, vectors within cosine ≈0.976–1 of fp32. */
export const MINILM_INT8_MODEL_ID = 'all-minilm-l6-v2-int8';
const MODEL_IDS: Readonly<Record<MiniLmPrecision, string>> = { fp32: MINILM_MODEL_ID, int8: MINILM_INT8_MODEL_ID };

/** The precision a minilm model id names, or undefined for any other model. */
export function miniLmPrecisionOf(modelId: string): MiniLmPrecision | undefined {
  return modelId === MINILM_MODEL_ID ? 'fp32' : modelId === MINILM_INT8_MODEL_ID ? 'int8' : undefined;
}
export const MINILM_DIMENSION = 384;
/** all-MiniLM-L6-v2 was trained on inputs of up to 256 tokens ([CLS] and [SEP] included). */
export const MINILM_WINDOW_TOKENS = 256;
/** Windows embedded per text: 16 × 254 tokens, ~16 KB of English prose; the rest of a longer text is dropped (it bounds the cost of one text). */
export const MINILM_MAX_WINDOWS = 16;
/**
 * Windows per forward pass, by precision. The int8 model quantizes its activations dynamically, with
 * one scale per tensor: rows batched together change each other's vectors (cosine ~0.985–0.995 to
 * the same text alone, measured), so it runs one window per pass. fp32 rows do not touch each other
 * (padding is masked; float rounding aside), and passes of 16 embed calls of 64 texts in about half
 * the CPU of one window per pass.
 */
export const MINILM_DEFAULT_BATCH_SIZE: Readonly<Record<MiniLmPrecision, number>> = { fp32: 16, int8: 1 };
/** Padded tokens per forward pass: bounds the attention tensors (heads × rows × tokens²) held at once. */
const MINILM_PASS_TOKENS = 4_096;

/** The parts of onnxruntime-node and @huggingface/tokenizers we use. */
interface OrtModule {
  readonly InferenceSession: { create(model: Uint8Array, options: Record<string, unknown>): Promise<OrtSession> };
  readonly Tensor: new (type: 'int64', data: BigInt64Array, dims: readonly number[]) => unknown;
}
interface OrtSession {
  readonly inputNames: readonly string[];
  run(feeds: Record<string, unknown>): Promise<Record<string, { readonly data: unknown; readonly dims: readonly number[] }>>;
}
interface WordPieceTokenizer {
  encode(text: string, options: { add_special_tokens: boolean }): { ids: number[] };
  token_to_id(token: string): number | undefined;
}

interface LoadedModel {
  readonly ort: OrtModule;
  readonly session: OrtSession;
  readonly tokenizer: WordPieceTokenizer;
  readonly clsId: number;
  readonly sepId: number;
  readonly loadMs: number;
}

// One session per model folder and process: the weights and the ONNX Runtime thread pool are big and shareable.
const loaded = new Map<string, Promise<LoadedModel>>();

function loadModel(dir: string, precision: MiniLmPrecision, threads: number, spinWhenIdle: boolean): Promise<LoadedModel> {
  const key = `${dir}\0${precision}\0${threads}\0${spinWhenIdle}`;
  let model = loaded.get(key);
  if (!model) {
    model = (async (): Promise<LoadedModel> => {
      const started = performance.now();
      const [files, ort, { Tokenizer }] = await Promise.all([
        readMiniLmModelFiles(dir, precision),
        import('onnxruntime-node') as Promise<unknown> as Promise<OrtModule>,
        import('@huggingface/tokenizers'),
      ]);
      const tokenizer = new Tokenizer(JSON.parse(files.tokenizerJson) as object, {}) as WordPieceTokenizer;
      const clsId = tokenizer.token_to_id('[CLS]');
      const sepId = tokenizer.token_to_id('[SEP]');
      if (clsId === undefined || sepId === undefined) throw new Error('tokenizer.json has no [CLS]/[SEP] token');
      const session = await ort.InferenceSession.create(files.model, {
        executionProviders: ['cpu'],
        graphOptimizationLevel: 'all',
        intraOpNumThreads: threads,
        interOpNumThreads: 1,
        ...(spinWhenIdle ? {} : { extra: { session: { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } } } }),
      });
      return { ort, session, tokenizer, clsId, sepId, loadMs: performance.now() - started };
    })().catch((cause: unknown) => {
      loaded.delete(key);
      if (cause instanceof UnavailableError) throw cause;
      throw new UnavailableError(`could not load the minilm model from ${dir}`, { cause });
    });
    loaded.set(key, model);
  }
  return model;
}

export interface MiniLmEmbedderOptions {
  /** Folder with model-fp16.onnx (fp32 arithmetic), model-int8.onnx and tokenizer.json; default: the @hyphae/model-all-minilm-l6-v2 package. */
  readonly modelDir?: string;
  /** The weights: `fp32` (default, model id all-minilm-l6-v2) or `int8` (all-minilm-l6-v2-int8). */
  readonly precision?: MiniLmPrecision;
  /** Windows per forward pass (see MINILM_DEFAULT_BATCH_SIZE: above 1, int8 vectors depend on their batch). */
  readonly batchSize?: number;
  /** ONNX Runtime intra-op threads; default: the cores available, at most 4. */
  readonly threads?: number;
  /**
   * Keep the thread pool spinning between runs (onnxruntime's default). Off by default: in a
   * process that also serves requests the spinning threads burned about as much CPU again as each
   * embedding, on the cores PGlite and the request loop need (a store 1.5× slower, same embedding
   * latency). On for a process that only embeds, back to back (`hyphae worker`, `hyphae reembed`):
   * 1.35× the texts/s for ~15% more CPU per text.
   */
  readonly spinWhenIdle?: boolean;
}

interface Piece {
  readonly ids: readonly number[];
  readonly request: PendingRequest;
  readonly owner: number;
}

interface PendingRequest {
  readonly sums: Float64Array[];
  remaining: number;
  failed: boolean;
  readonly resolve: (vectors: Float32Array[]) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * all-MiniLM-L6-v2, 384-d (the default embedder), fp32 or int8: WordPiece tokens in windows of 256,
 * mean-pooled over the attention mask and L2-normalised; a text of several windows is the
 * token-weighted mean of its windows' vectors, normalised again. Concurrent embed calls queue
 * their windows for one stream of forward passes (the session uses every thread it has); with a
 * batch size above 1 their windows also share passes.
 */
export class MiniLmEmbedder implements Embedder {
  readonly modelId: string;
  readonly dimension = MINILM_DIMENSION;
  readonly precision: MiniLmPrecision;
  private readonly modelDir: string;
  private readonly batchSize: number;
  private readonly threads: number;
  private readonly spinWhenIdle: boolean;
  private readonly queue: Piece[] = [];
  private running = false;
  private closed = false;
  private passes = 0;

  constructor(options: MiniLmEmbedderOptions = {}) {
    this.precision = options.precision ?? 'fp32';
    if (this.precision !== 'fp32' && this.precision !== 'int8') {
      throw new InvalidArgumentError('minilm precision must be fp32 or int8', [{ path: 'precision', message: `got ${String(this.precision)}` }]);
    }
    this.modelId = MODEL_IDS[this.precision];
    this.batchSize = checkedInteger('batchSize', options.batchSize ?? MINILM_DEFAULT_BATCH_SIZE[this.precision], 1, 1024);
    this.threads = checkedInteger('threads', options.threads ?? Math.min(availableParallelism(), 4), 1, 64);
    this.modelDir = options.modelDir ?? defaultMiniLmModelDir();
    this.spinWhenIdle = options.spinWhenIdle ?? false;
  }

  /** Loads the model now (it is otherwise loaded by the first embed); returns the load time in ms. */
  async warmUp(): Promise<number> {
    return (await loadModel(this.modelDir, this.precision, this.threads, this.spinWhenIdle)).loadMs;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (this.closed) throw new UnavailableError('the minilm embedder is closed');
    if (texts.length === 0) return [];
    const model = await loadModel(this.modelDir, this.precision, this.threads, this.spinWhenIdle);
    const windows = texts.map((text) =>
      tokenWindows(model.tokenizer.encode(text, { add_special_tokens: false }).ids, {
        windowTokens: MINILM_WINDOW_TOKENS,
        maxWindows: MINILM_MAX_WINDOWS,
        clsId: model.clsId,
        sepId: model.sepId,
      }),
    );
    return new Promise<Float32Array[]>((resolve, reject) => {
      const request: PendingRequest = { sums: texts.map(() => new Float64Array(MINILM_DIMENSION)), remaining: 0, failed: false, resolve, reject };
      windows.forEach((ofText, owner) => {
        for (const ids of ofText) this.queue.push({ ids, request, owner });
        request.remaining += ofText.length;
      });
      void this.pump(model);
    });
  }

  /** Forward passes run so far by this embedder (windows of concurrent calls share them). */
  get forwardPasses(): number {
    return this.passes;
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }

  private async pump(model: LoadedModel): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.queue.length > 0) {
        // First come, first served in groups of a few passes; inside a group similar lengths share a pass, so little of it is padding.
        const group = this.queue.splice(0, this.batchSize * 4).sort((a, b) => a.ids.length - b.ids.length);
        for (let start = 0; start < group.length; ) {
          let end = start + 1;
          // Rows grow in length, so the padded size of a pass is its row count times its last row's length.
          while (end < group.length && end - start < this.batchSize && (end - start + 1) * (group[end] as Piece).ids.length <= MINILM_PASS_TOKENS) end++;
          await this.runPass(model, group.slice(start, end));
          start = end;
        }
      }
    } finally {
      this.running = false;
    }
  }

  private async runPass(model: LoadedModel, batch: readonly Piece[]): Promise<void> {
    let vectors: Float32Array[];
    this.passes++;
    try {
      vectors = await forward(model, batch.map((piece) => piece.ids));
    } catch (cause) {
      const error = new UnavailableError('the minilm model failed to embed', { cause });
      for (const piece of batch) fail(piece.request, error);
      return;
    }
    batch.forEach((piece, i) => {
      const request = piece.request;
      if (request.failed) return;
      // Weighted by its real tokens, so a short tail window counts for less than a full one.
      const weight = piece.ids.length - 2 || 1;
      const sum = request.sums[piece.owner] as Float64Array;
      const vector = vectors[i] as Float32Array;
      for (let d = 0; d < MINILM_DIMENSION; d++) sum[d] = (sum[d] as number) + weight * (vector[d] as number);
      request.remaining--;
      if (request.remaining === 0) request.resolve(request.sums.map((s) => normalized(s)));
    });
  }
}

async function forward(model: LoadedModel, rows: readonly (readonly number[])[]): Promise<Float32Array[]> {
  const tokens = Math.max(...rows.map((row) => row.length));
  const ids = new BigInt64Array(rows.length * tokens);
  const mask = new BigInt64Array(rows.length * tokens);
  rows.forEach((row, r) => {
    row.forEach((id, t) => {
      ids[r * tokens + t] = BigInt(id);
      mask[r * tokens + t] = 1n;
    });
  });
  const dims = [rows.length, tokens];
  const feeds: Record<string, unknown> = {
    input_ids: new model.ort.Tensor('int64', ids, dims),
    attention_mask: new model.ort.Tensor('int64', mask, dims),
  };
  if (model.session.inputNames.includes('token_type_ids')) feeds.token_type_ids = new model.ort.Tensor('int64', new BigInt64Array(rows.length * tokens), dims);
  const output = await model.session.run(feeds);
  const hidden = output.last_hidden_state;
  if (!hidden || !(hidden.data instanceof Float32Array)) throw new Error('the model returned no float32 last_hidden_state');
  return meanPoolNormalized(hidden.data, mask, rows.length, tokens, MINILM_DIMENSION);
}

function fail(request: PendingRequest, error: unknown): void {
  if (request.failed) return;
  request.failed = true;
  request.reject(error);
}

function normalized(sum: Float64Array): Float32Array {
  let sumOfSquares = 0;
  for (const x of sum) sumOfSquares += x * x;
  const scale = sumOfSquares === 0 ? 0 : 1 / Math.sqrt(sumOfSquares);
  return Float32Array.from(sum, (x) => x * scale);
}

function checkedInteger(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new InvalidArgumentError(`minilm ${name} must be an integer in [${min}, ${max}]`, [{ path: name, message: `got ${String(value)}` }]);
  }
  return value;
}
