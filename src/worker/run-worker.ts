import type { FastifyInstance } from 'fastify';
import { InvalidArgumentError } from '../core/errors.js';
import { createEmbedder } from '../embed/create-embedder.js';
import type { EmbedderConfig } from '../embed/create-embedder.js';
import { embedSubject } from '../embed/embed-wire.js';
import type { Embedder } from '../embed/embedder.js';
import { MicroBatcher } from './micro-batcher.js';
import { NatsEmbedResponder } from './nats-responder.js';
import { buildWorkerHttpApp } from './worker-http-app.js';
import { createWorkerMetrics } from './worker-metrics.js';
import type { WorkerMetrics } from './worker-metrics.js';

export const WORKER_DEFAULT_MAX_BATCH_TEXTS = 64;
export const WORKER_DEFAULT_MAX_WAIT_MS = 5;

export interface WorkerOptions {
  /** An embedder to serve; when absent one is built from `embedderConfig` (default `minilm`). */
  readonly embedder?: Embedder;
  readonly embedderConfig?: EmbedderConfig;
  /** Serve the NATS queue group `hyphae.embed.<model id>` on this server (comma-separated URLs allowed). */
  readonly natsUrl?: string;
  /** Serve HTTP (`/v1/embeddings`, `/healthz`, `/readyz`, `/metrics`) on this port; 0 picks a free one. */
  readonly port?: number;
  readonly host?: string;
  readonly maxBatchTexts?: number;
  readonly maxWaitMs?: number;
  /** NATS queue group; workers of one model in one group share its requests. */
  readonly queue?: string;
  /** Stop cleanly on SIGTERM and SIGINT. */
  readonly handleSignals?: boolean;
  readonly logger?: boolean;
}

export interface RunningWorker {
  readonly modelId: string;
  readonly dimension: number;
  /** The NATS subject served, when NATS is used. */
  readonly subject: string | undefined;
  /** `http://host:port` when HTTP is served. */
  readonly httpUrl: string | undefined;
  readonly metrics: WorkerMetrics;
  /** Stops taking work, answers what it holds, then releases NATS, HTTP and the embedder. Idempotent. */
  stop(): Promise<void>;
  /** Settles once the worker has stopped (by `stop()` or a signal). */
  readonly stopped: Promise<void>;
}

/** Starts `hyphae worker`: loads the embedder, then serves it over NATS and/or HTTP. */
export async function runWorker(options: WorkerOptions): Promise<RunningWorker> {
  if (options.natsUrl === undefined && options.port === undefined) {
    throw new InvalidArgumentError('a worker needs a NATS URL, an HTTP port, or both', [
      { path: 'natsUrl', message: 'set --nats-url / HYPHAE_NATS_URL' },
      { path: 'port', message: 'or set --port / HYPHAE_PORT' },
    ]);
  }
  const embedder = options.embedder ?? (await createEmbedder(options.embedderConfig ?? { kind: 'minilm', embedsOnly: true }));
  // Load the model before announcing the worker, so its first request pays no load time.
  await embedder.embed(['warm up']);
  const { modelId, dimension } = embedder;
  const metrics = createWorkerMetrics(modelId);
  const batcher = new MicroBatcher(embedder, {
    maxBatchTexts: options.maxBatchTexts ?? WORKER_DEFAULT_MAX_BATCH_TEXTS,
    maxWaitMs: options.maxWaitMs ?? WORKER_DEFAULT_MAX_WAIT_MS,
    onBatch: (texts, ms) => metrics.observeBatch(texts, ms / 1000),
  });
  metrics.trackQueueDepth(() => batcher.queueDepth);

  let draining = false;
  let responder: NatsEmbedResponder | undefined;
  let app: FastifyInstance | undefined;
  let httpUrl: string | undefined;
  const subject = options.natsUrl === undefined ? undefined : embedSubject(modelId);
  try {
    if (options.natsUrl !== undefined && subject !== undefined) {
      responder = await NatsEmbedResponder.start({ servers: options.natsUrl, subject, modelId, dimension, batcher, metrics, ...(options.queue ? { queue: options.queue } : {}) });
      const served = responder;
      metrics.trackNatsConnection(() => served.isConnected());
    }
    if (options.port !== undefined) {
      const nats = responder;
      app = buildWorkerHttpApp({
        modelId,
        dimension,
        batcher,
        metrics,
        isDraining: () => draining,
        isReady: () => {
          const reasons: string[] = [];
          if (draining) reasons.push('shutting down');
          if (nats && !nats.isConnected()) reasons.push('NATS disconnected');
          return { ready: reasons.length === 0, reasons };
        },
        ...(options.logger === undefined ? {} : { logger: options.logger }),
      });
      const host = options.host ?? '127.0.0.1';
      await app.listen({ host, port: options.port });
      const address = app.server.address();
      const port = typeof address === 'object' && address ? address.port : options.port;
      httpUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    }
  } catch (error) {
    await responder?.stop();
    await app?.close();
    await embedder.close();
    throw error;
  }

  let resolveStopped: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => {
    resolveStopped = resolve;
  });
  let stopping: Promise<void> | undefined;
  const onSignal = (): void => {
    void stop();
  };
  const stop = (): Promise<void> => {
    stopping ??= (async (): Promise<void> => {
      draining = true;
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      // NATS first: queue-group peers take new requests at once; HTTP answers new ones 503 while it finishes the rest.
      await responder?.stop();
      await app?.close();
      await batcher.drain();
      await embedder.close();
      resolveStopped();
    })();
    return stopping;
  };
  if (options.handleSignals) {
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  }
  return { modelId, dimension, subject, httpUrl, metrics, stop, stopped };
}
