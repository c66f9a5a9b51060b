import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { InvalidArgumentError, UnavailableError } from '../core/errors.js';
import type { HyphaeError } from '../core/errors.js';
import { EMBED_MAX_TEXTS_PER_REQUEST, decodeVector, embedReplySchema, embedSubject } from './embed-wire.js';
import type { Embedder } from './embedder.js';
import { backoffDelayMs, sleep } from './retry-backoff.js';
import type { BackoffOptions } from './retry-backoff.js';
import { l2Normalize } from './vector-math.js';

export interface NatsEmbedderOptions {
  /** One URL, a comma-separated list, or an array. */
  readonly servers: string | readonly string[];
  /** The model the workers must serve; it names the subject and is checked in every reply. */
  readonly modelId: string;
  readonly dimension: number;
  /** How long one attempt waits for a worker's reply. */
  readonly timeoutMs?: number;
  /** Attempts per request, the first included; a timed-out request goes to another worker of the queue group. */
  readonly attempts?: number;
  readonly backoff?: BackoffOptions;
  /** Texts per NATS request; a larger call is split and its parts go to the workers in parallel. */
  readonly maxTextsPerRequest?: number;
  /** Embeds locally when no worker answers; must be the same model (same id and dimension). */
  readonly fallback?: Embedder;
}

export const NATS_EMBED_DEFAULT_TIMEOUT_MS = 15_000;
export const NATS_EMBED_DEFAULT_ATTEMPTS = 3;
const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 100, maxMs: 2_000 };
const DEFAULT_TEXTS_PER_REQUEST = 64;

/**
 * Asks `hyphae worker`s over NATS (request/reply to their queue group). A request no worker answers in
 * time is retried (it may reach a live worker); when every attempt fails the call fails with
 * UNAVAILABLE, or embeds locally if a fallback is configured. A reply from another model, or with
 * vectors of another length, is refused: a deployment never stores a vector of a foreign model.
 */
export class NatsEmbedder implements Embedder {
  readonly modelId: string;
  readonly dimension: number;
  readonly subject: string;
  private readonly timeoutMs: number;
  private readonly attempts: number;
  private readonly backoff: BackoffOptions;
  private readonly textsPerRequest: number;
  private readonly fallback: Embedder | undefined;

  private constructor(
    private readonly connection: NatsConnection,
    options: NatsEmbedderOptions,
  ) {
    this.modelId = options.modelId;
    this.dimension = options.dimension;
    this.subject = embedSubject(options.modelId);
    this.timeoutMs = options.timeoutMs ?? NATS_EMBED_DEFAULT_TIMEOUT_MS;
    this.attempts = Math.max(1, options.attempts ?? NATS_EMBED_DEFAULT_ATTEMPTS);
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.textsPerRequest = Math.min(EMBED_MAX_TEXTS_PER_REQUEST, Math.max(1, options.maxTextsPerRequest ?? DEFAULT_TEXTS_PER_REQUEST));
    this.fallback = options.fallback;
  }

  static async connect(options: NatsEmbedderOptions): Promise<NatsEmbedder> {
    const fallback = options.fallback;
    if (fallback && (fallback.modelId !== options.modelId || fallback.dimension !== options.dimension)) {
      throw new InvalidArgumentError(
        `the local fallback embeds with '${fallback.modelId}' (${fallback.dimension}-d), not the workers' '${options.modelId}' (${options.dimension}-d)`,
        [{ path: 'fallback', message: 'must be the same model as the workers serve' }],
      );
    }
    const servers = typeof options.servers === 'string' ? options.servers.split(',').map((s) => s.trim()) : [...options.servers];
    try {
      const connection = await connect({ servers, name: 'hyphae-embed-client', reconnect: true, maxReconnectAttempts: -1 });
      return new NatsEmbedder(connection, options);
    } catch (cause) {
      throw new UnavailableError(`cannot connect to NATS at ${servers.join(',')} for embeddings`, { cause });
    }
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const parts: (readonly string[])[] = [];
    for (let i = 0; i < texts.length; i += this.textsPerRequest) parts.push(texts.slice(i, i + this.textsPerRequest));
    const vectors = await Promise.all(parts.map((part) => this.embedPart(part)));
    return vectors.flat();
  }

  async close(): Promise<void> {
    await this.fallback?.close();
    if (!this.connection.isClosed()) await this.connection.drain().catch(() => this.connection.close());
  }

  private async embedPart(texts: readonly string[]): Promise<Float32Array[]> {
    let lastFailure: unknown;
    for (let attempt = 0; attempt < this.attempts; attempt++) {
      if (attempt > 0) await sleep(backoffDelayMs(attempt - 1, this.backoff));
      let payload: string;
      try {
        const message = await this.connection.request(this.subject, JSON.stringify({ texts }), { timeout: this.timeoutMs });
        payload = message.string();
      } catch (cause) {
        // No responders, a timeout (the worker may have died holding it), or a connection problem: try again.
        lastFailure = cause;
        continue;
      }
      const outcome = this.readReply(payload, texts.length);
      if (outcome instanceof Array) return outcome;
      if (outcome.code !== 'UNAVAILABLE' || outcome.details?.retryable !== true) throw outcome;
      lastFailure = outcome;
    }
    if (this.fallback) return this.fallback.embed(texts);
    throw new UnavailableError(`no embedding worker answered on ${this.subject} after ${this.attempts} attempts`, {
      cause: lastFailure,
      details: { subject: this.subject, attempts: this.attempts, timeout_ms: this.timeoutMs },
    });
  }

  /** The vectors of a valid reply, or the error it stands for (retryable ones marked so). */
  private readReply(payload: string, expected: number): Float32Array[] | HyphaeError {
    let json: unknown;
    try {
      json = JSON.parse(payload);
    } catch {
      return new UnavailableError(`malformed reply on ${this.subject}`, { details: { retryable: true } });
    }
    const reply = embedReplySchema.safeParse(json);
    if (!reply.success) return new UnavailableError(`malformed reply on ${this.subject}`, { details: { retryable: true } });
    if ('error' in reply.data) {
      const { code, message } = reply.data.error;
      if (code === 'INVALID_ARGUMENT') return new InvalidArgumentError(`the embedding worker refused the request: ${message}`);
      // A worker shutting down or failing: another one may answer.
      return new UnavailableError(`the embedding worker failed: ${message}`, { details: { retryable: true, worker_code: code } });
    }
    const { model, dimension, vectors } = reply.data;
    if (model !== this.modelId || dimension !== this.dimension) {
      return new UnavailableError(
        `an embedding worker on ${this.subject} serves '${model}' (${dimension}-d) but this deployment uses '${this.modelId}' (${this.dimension}-d); refusing its vectors`,
        { details: { expected_model: this.modelId, expected_dimension: this.dimension, got_model: model, got_dimension: dimension } },
      );
    }
    const decoded = vectors.map(decodeVector);
    if (decoded.length !== expected || decoded.some((v) => v.length !== this.dimension)) {
      return new UnavailableError(`an embedding worker on ${this.subject} replied with vectors of the wrong count or length; refusing them`);
    }
    return decoded.map((v) => l2Normalize(v));
  }
}
