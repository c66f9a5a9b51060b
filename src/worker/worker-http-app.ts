import { fastify } from 'fastify';
import type { FastifyInstance } from 'fastify';
import type { MicroBatcher } from './micro-batcher.js';
import { registerOpenAiEmbeddingsRoute } from './openai-embeddings-route.js';
import type { WorkerMetrics } from './worker-metrics.js';

export interface WorkerHttpAppOptions {
  readonly modelId: string;
  readonly dimension: number;
  readonly batcher: MicroBatcher;
  readonly metrics: WorkerMetrics;
  /** Ready when the model is loaded, NATS (if used) is connected, and the worker is not shutting down. */
  readonly isReady: () => { ready: boolean; reasons: string[] };
  readonly isDraining: () => boolean;
  readonly logger?: boolean;
}

/** 16 MiB: room for OpenAI's 2048 inputs per request. */
const BODY_LIMIT_BYTES = 16 * 1024 * 1024;

/** The worker's HTTP face: OpenAI-compatible embeddings, liveness, readiness and Prometheus metrics. */
export function buildWorkerHttpApp(options: WorkerHttpAppOptions): FastifyInstance {
  const app = fastify({ logger: options.logger ?? false, bodyLimit: BODY_LIMIT_BYTES });
  // Node's server.close() only closes connections idle at that moment; one finishing a request later must not linger.
  app.addHook('onSend', async (_request, reply, payload) => {
    if (options.isDraining()) reply.header('connection', 'close');
    return payload;
  });
  registerOpenAiEmbeddingsRoute(app, options);
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const { ready, reasons } = options.isReady();
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', model: options.modelId, dimension: options.dimension, reasons });
  });
  app.get('/metrics', async (_request, reply) => reply.header('content-type', options.metrics.contentType).send(await options.metrics.render()));
  return app;
}
