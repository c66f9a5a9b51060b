import { z } from 'zod';
import { InvalidArgumentError, UnavailableError } from '../core/errors.js';
import { decodeVector } from './embed-wire.js';
import type { Embedder } from './embedder.js';
import { JsonPoster, type JsonReply } from './json-poster.js';
import { backoffDelayMs, parseRetryAfterMs, sleep } from './retry-backoff.js';
import type { BackoffOptions } from './retry-backoff.js';
import { l2Normalize } from './vector-math.js';

export interface OpenAiEmbedderOptions {
  /** Base URL of the API, e.g. https://api.openai.com/v1, http://localhost:11434/v1 (Ollama), http://worker:8080/v1. */
  readonly url: string;
  /** The model requested; it is also the model id the database records. */
  readonly model: string;
  readonly dimension: number;
  /** Sent as a bearer token when set; never logged. */
  readonly apiKey?: string;
  /** Per attempt. */
  readonly timeoutMs?: number;
  /** Attempts per request, the first included. */
  readonly attempts?: number;
  readonly backoff?: BackoffOptions;
  /** A longer Retry-After than this is not waited out: the call fails UNAVAILABLE instead. */
  readonly maxRetryAfterMs?: number;
  /** Texts per HTTP request. */
  readonly maxTextsPerRequest?: number;
  /** Waits between attempts (Retry-After or backoff); tests pass a gate to observe the wait. */
  readonly sleep?: (ms: number) => Promise<void>;
}

export const OPENAI_EMBED_DEFAULT_TIMEOUT_MS = 30_000;
export const OPENAI_EMBED_DEFAULT_ATTEMPTS = 4;
const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 250, maxMs: 8_000 };
const DEFAULT_MAX_RETRY_AFTER_MS = 30_000;
const DEFAULT_TEXTS_PER_REQUEST = 96;

const embeddingsResponseSchema = z.object({
  data: z.array(z.object({ index: z.int().nonnegative(), embedding: z.union([z.array(z.number()), z.string()]) })),
  model: z.string().optional(),
});

/** One attempt's outcome: vectors, or why it failed and whether (and when) to try again. */
type Attempt = { readonly vectors: Float32Array[] } | { readonly error: Error; readonly retry: boolean; readonly retryAfterMs?: number };

type EncodingFormat = 'base64' | 'float';

/** A refusal that names the encoding: an endpoint that knows only float arrays. */
const ENCODING_REFUSED = /encoding_format/;

/**
 * Any OpenAI-compatible `/v1/embeddings` endpoint: OpenAI, Ollama, vLLM, TEI, or `hyphae worker`.
 * Asks for base64 float32 (4 bytes a dimension, decoded without parsing numbers); takes float
 * arrays from an endpoint that ignores that, and asks one that refuses it for floats from then on.
 * Retries 429 (honouring Retry-After), 5xx, timeouts and network errors with jittered backoff;
 * checks every vector's length against the deployment's dimension.
 */
export class OpenAiEmbedder implements Embedder {
  readonly modelId: string;
  readonly dimension: number;
  private readonly endpoint: string;
  private readonly apiKey: string | undefined;
  private readonly timeoutMs: number;
  private readonly attempts: number;
  private readonly backoff: BackoffOptions;
  private readonly maxRetryAfterMs: number;
  private readonly textsPerRequest: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly poster: JsonPoster;
  private encoding: EncodingFormat = 'base64';

  constructor(options: OpenAiEmbedderOptions) {
    let base: URL;
    try {
      base = new URL(options.url);
    } catch {
      throw new InvalidArgumentError('the embeddings URL is not a URL', [{ path: 'url', message: 'e.g. https://api.openai.com/v1' }]);
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw new InvalidArgumentError('the embeddings URL must be http or https', [{ path: 'url', message: `got ${base.protocol}` }]);
    }
    const path = base.pathname.replace(/\/+$/, '');
    this.endpoint = new URL(path.endsWith('/embeddings') ? path : `${path}/embeddings`, base).toString();
    this.modelId = options.model;
    this.dimension = options.dimension;
    this.apiKey = options.apiKey;
    this.timeoutMs = options.timeoutMs ?? OPENAI_EMBED_DEFAULT_TIMEOUT_MS;
    this.attempts = Math.max(1, options.attempts ?? OPENAI_EMBED_DEFAULT_ATTEMPTS);
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.maxRetryAfterMs = options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
    this.textsPerRequest = Math.max(1, options.maxTextsPerRequest ?? DEFAULT_TEXTS_PER_REQUEST);
    this.sleep = options.sleep ?? sleep;
    this.poster = new JsonPoster(this.endpoint);
  }

  /** The full URL requests go to. */
  get url(): string {
    return this.endpoint;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.textsPerRequest) out.push(...(await this.embedPart(texts.slice(i, i + this.textsPerRequest))));
    return out;
  }

  close(): Promise<void> {
    this.poster.close();
    return Promise.resolve();
  }

  private async embedPart(texts: readonly string[]): Promise<Float32Array[]> {
    let last: Attempt | undefined;
    for (let attempt = 0; attempt < this.attempts; attempt++) {
      if (last && 'error' in last) {
        const wait = last.retryAfterMs ?? backoffDelayMs(attempt - 1, this.backoff);
        if (wait > this.maxRetryAfterMs) break;
        await this.sleep(wait);
      }
      last = await this.attempt(texts);
      if ('vectors' in last) return last.vectors;
      if (!last.retry) throw last.error;
    }
    const cause = last && 'error' in last ? last.error : undefined;
    throw new UnavailableError(`the embeddings endpoint ${this.endpoint} did not answer successfully after ${this.attempts} attempts`, {
      cause,
      details: { url: this.endpoint, attempts: this.attempts, last_error: cause?.message },
    });
  }

  private async attempt(texts: readonly string[]): Promise<Attempt> {
    let response: JsonReply;
    try {
      response = await this.poster.post(
        JSON.stringify({ model: this.modelId, input: texts, encoding_format: this.encoding }),
        { accept: 'application/json', ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}) },
        this.timeoutMs,
      );
    } catch (cause) {
      return { error: new UnavailableError(`cannot reach ${this.endpoint}`, { cause }), retry: true };
    }
    if (response.status === 429 || response.status >= 500) {
      const retryAfterMs = parseRetryAfterMs(response.header('retry-after') ?? null);
      const error = new UnavailableError(`${this.endpoint} answered ${response.status}`, { details: { status: response.status } });
      return retryAfterMs === undefined ? { error, retry: true } : { error, retry: true, retryAfterMs };
    }
    if ((response.status === 400 || response.status === 422) && this.encoding === 'base64' && ENCODING_REFUSED.test(response.body)) {
      this.encoding = 'float';
      return this.attempt(texts);
    }
    if (response.status < 200 || response.status > 299) {
      const detail = response.body.slice(0, 500);
      const error =
        response.status === 400 || response.status === 413 || response.status === 422
          ? new InvalidArgumentError(`${this.endpoint} refused the request (${response.status}): ${detail}`)
          : new UnavailableError(`${this.endpoint} answered ${response.status} (check the URL, model and API key): ${detail}`, { details: { status: response.status } });
      return { error, retry: false };
    }
    let parsed: z.infer<typeof embeddingsResponseSchema>;
    try {
      const result = embeddingsResponseSchema.safeParse(JSON.parse(response.body));
      if (!result.success) return { error: new UnavailableError(`${this.endpoint} sent a malformed embeddings response`), retry: true };
      parsed = result.data;
    } catch (cause) {
      return { error: new UnavailableError(`${this.endpoint} sent a response that is not JSON`, { cause }), retry: true };
    }
    return this.vectorsOf(parsed, texts.length);
  }

  private vectorsOf(response: z.infer<typeof embeddingsResponseSchema>, expected: number): Attempt {
    const byIndex = new Map<number, Float32Array>();
    for (const item of response.data) byIndex.set(item.index, typeof item.embedding === 'string' ? decodeVector(item.embedding) : Float32Array.from(item.embedding));
    const vectors: Float32Array[] = [];
    for (let i = 0; i < expected; i++) {
      const vector = byIndex.get(i);
      if (!vector) return { error: new UnavailableError(`${this.endpoint} returned ${response.data.length} embeddings for ${expected} inputs`), retry: false };
      if (vector.length !== this.dimension) {
        return {
          error: new UnavailableError(
            `${this.endpoint} returned ${vector.length}-d vectors for '${this.modelId}' but this deployment uses ${this.dimension}-d; refusing them`,
            { details: { expected_dimension: this.dimension, got_dimension: vector.length } },
          ),
          retry: false,
        };
      }
      vectors.push(l2Normalize(vector));
    }
    return { vectors };
  }
}
