import { UnavailableError } from '../core/errors.js';
import type { Embedder } from '../embed/embedder.js';

export interface MicroBatcherOptions {
  /** Most texts embedded in one call; a request larger than this is embedded alone, in the embedder's own batches. */
  readonly maxBatchTexts: number;
  /** Longest a text waits for others to join its batch. */
  readonly maxWaitMs: number;
  /** Texts allowed to wait; beyond this a request is refused UNAVAILABLE so the client retries elsewhere instead of queueing without bound. */
  readonly maxQueuedTexts?: number;
  /** Called once per embedder call with the number of texts it carried. */
  readonly onBatch?: (texts: number, durationMs: number) => void;
}

export const DEFAULT_MAX_QUEUED_TEXTS = 8_192;

interface PendingRequest {
  readonly texts: readonly string[];
  readonly resolve: (vectors: Float32Array[]) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Combines requests that arrive within `maxWaitMs` into one embedder call of at most
 * `maxBatchTexts` texts, one call at a time (the model uses every core it has). Requests keep
 * their order and each gets exactly its own vectors back.
 */
export class MicroBatcher {
  private readonly queue: PendingRequest[] = [];
  private queuedTexts = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly embedder: Embedder,
    private readonly options: MicroBatcherOptions,
  ) {}

  /** Texts waiting for a batch (not the ones being embedded now). */
  get queueDepth(): number {
    return this.queuedTexts;
  }

  submit(texts: readonly string[]): Promise<Float32Array[]> {
    if (this.closed) return Promise.reject(new UnavailableError('the embedding worker is shutting down'));
    if (texts.length === 0) return Promise.resolve([]);
    if (this.queuedTexts > 0 && this.queuedTexts + texts.length > (this.options.maxQueuedTexts ?? DEFAULT_MAX_QUEUED_TEXTS)) {
      return Promise.reject(new UnavailableError('the embedding worker is overloaded; retry on another worker'));
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ texts, resolve, reject });
      this.queuedTexts += texts.length;
      this.schedule();
    });
  }

  /** Refuses new work and resolves once every accepted request has its answer. */
  async drain(): Promise<void> {
    this.closed = true;
    while (this.queue.length > 0 || this.running) {
      if (this.timer) {
        clearTimeout(this.timer);
        this.timer = undefined;
      }
      if (!this.running) this.startBatch();
      await this.running;
    }
  }

  private schedule(): void {
    if (this.running) return;
    if (this.queuedTexts >= this.options.maxBatchTexts) {
      this.startBatch();
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      if (!this.running) this.startBatch();
    }, this.options.maxWaitMs);
  }

  private startBatch(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const batch = this.takeBatch();
    if (batch.length === 0) return;
    this.running = this.embedBatch(batch).finally(() => {
      this.running = undefined;
      // Whatever queued up meanwhile has already waited at least one batch: send it at once.
      if (this.queue.length > 0) this.startBatch();
    });
  }

  private takeBatch(): PendingRequest[] {
    const batch: PendingRequest[] = [];
    let texts = 0;
    while (this.queue.length > 0) {
      const next = this.queue[0] as PendingRequest;
      if (batch.length > 0 && texts + next.texts.length > this.options.maxBatchTexts) break;
      this.queue.shift();
      batch.push(next);
      texts += next.texts.length;
    }
    this.queuedTexts -= texts;
    return batch;
  }

  private async embedBatch(batch: readonly PendingRequest[]): Promise<void> {
    const texts = batch.flatMap((request) => request.texts);
    const started = performance.now();
    try {
      const vectors = await this.embedder.embed(texts);
      this.options.onBatch?.(texts.length, performance.now() - started);
      let offset = 0;
      for (const request of batch) {
        request.resolve(vectors.slice(offset, offset + request.texts.length));
        offset += request.texts.length;
      }
    } catch (error) {
      for (const request of batch) request.reject(error);
    }
  }
}
