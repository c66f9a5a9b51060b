import { connect } from '@nats-io/transport-node';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { UnavailableError, isHyphaeError } from '../core/errors.js';
import { EMBED_QUEUE_GROUP, embedRequestSchema, encodeVector } from '../embed/embed-wire.js';
import type { EmbedReply } from '../embed/embed-wire.js';
import type { MicroBatcher } from './micro-batcher.js';
import type { WorkerMetrics } from './worker-metrics.js';

export interface NatsResponderOptions {
  /** One URL, a comma-separated list, or an array. */
  readonly servers: string | readonly string[];
  readonly subject: string;
  readonly modelId: string;
  readonly dimension: number;
  readonly batcher: MicroBatcher;
  readonly metrics: WorkerMetrics;
  readonly queue?: string;
  readonly name?: string;
}

/**
 * Answers `hyphae.embed.<model>` requests as one member of a queue group, so each request is
 * answered by exactly one of any number of workers. Every reply names the model and dimension.
 */
export class NatsEmbedResponder {
  private connected = true;
  private readonly inFlight = new Set<Promise<void>>();

  private readonly subscription: Subscription;

  private constructor(
    private readonly connection: NatsConnection,
    private readonly options: NatsResponderOptions,
  ) {
    this.subscription = connection.subscribe(options.subject, {
      queue: options.queue ?? EMBED_QUEUE_GROUP,
      callback: (error, message) => {
        if (!error) this.track(this.answer(message));
      },
    });
    void this.watchStatus();
  }

  static async start(options: NatsResponderOptions): Promise<NatsEmbedResponder> {
    const servers = typeof options.servers === 'string' ? options.servers.split(',').map((s) => s.trim()) : [...options.servers];
    let connection: NatsConnection;
    try {
      connection = await connect({ servers, name: options.name ?? 'hyphae-worker', reconnect: true, maxReconnectAttempts: -1 });
    } catch (cause) {
      throw new UnavailableError(`cannot connect to NATS at ${servers.join(',')}`, { cause });
    }
    const responder = new NatsEmbedResponder(connection, options);
    // The interest must reach the server before a client can count on this worker.
    await connection.flush();
    return responder;
  }

  isConnected(): boolean {
    return this.connected && !this.connection.isClosed();
  }

  /** Stops taking requests (the server routes new ones to the other workers), answers those held, then disconnects. */
  async stop(): Promise<void> {
    if (this.connection.isClosed()) return;
    await this.subscription.drain().catch(() => undefined);
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    await this.connection.drain().catch(() => this.connection.close());
  }

  private track(work: Promise<void>): void {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  private async answer(message: Msg): Promise<void> {
    if (!message.reply) return;
    const started = performance.now();
    const seconds = (): number => (performance.now() - started) / 1000;
    const request = embedRequestSchema.safeParse(parseJson(message.string()));
    if (!request.success) {
      this.options.metrics.observeRequest('nats', 'invalid', 0, seconds());
      reply(message, { error: { code: 'INVALID_ARGUMENT', message: request.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') } });
      return;
    }
    const { texts } = request.data;
    try {
      const vectors = await this.options.batcher.submit(texts);
      reply(message, { model: this.options.modelId, dimension: this.options.dimension, vectors: vectors.map(encodeVector) });
      this.options.metrics.observeRequest('nats', 'ok', texts.length, seconds());
    } catch (error) {
      this.options.metrics.observeRequest('nats', 'error', texts.length, seconds());
      const code = isHyphaeError(error) ? error.code : 'INTERNAL';
      reply(message, { error: { code, message: isHyphaeError(error) ? error.message : 'embedding failed' } });
    }
  }

  private async watchStatus(): Promise<void> {
    for await (const status of this.connection.status()) {
      if (status.type === 'disconnect' || status.type === 'close') this.connected = false;
      else if (status.type === 'reconnect') this.connected = true;
    }
  }
}

function reply(message: Msg, payload: EmbedReply): void {
  // A reply to a requester that gave up, or over a connection that just closed, has no one to reach.
  try {
    message.respond(JSON.stringify(payload));
  } catch {
    return;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
