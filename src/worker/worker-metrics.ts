/**
 * Prometheus metrics of one `hyphae worker`, on its own registry (a worker may share a process with
 * a server in tests and benches). Labels are low-cardinality: transport and outcome only.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { registerNatsConnectionGauge } from '../metrics/dependency-gauges.js';

const WORKER_TRANSPORTS = ['nats', 'http'] as const;
export type WorkerTransport = (typeof WORKER_TRANSPORTS)[number];
const WORKER_OUTCOMES = ['ok', 'invalid', 'error'] as const;
export type WorkerOutcome = (typeof WORKER_OUTCOMES)[number];

export interface WorkerMetrics {
  readonly registry: Registry;
  observeRequest(transport: WorkerTransport, outcome: WorkerOutcome, texts: number, seconds: number): void;
  observeBatch(texts: number, seconds: number): void;
  /** Sampled on each scrape. */
  trackQueueDepth(sample: () => number): void;
  /** hyphae_nats_connected{connection="embed"} follows `connected()` from now on (a worker serving NATS). */
  trackNatsConnection(connected: () => boolean): void;
  render(): Promise<string>;
  readonly contentType: string;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];

export function createWorkerMetrics(modelId: string): WorkerMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ model: modelId });
  collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: 'hyphae_worker_requests_total',
    help: 'Embedding requests by transport and outcome',
    labelNames: ['transport', 'outcome'] as const,
    registers: [registry],
  });
  const texts = new Counter({
    name: 'hyphae_worker_texts_total',
    help: 'Texts embedded, by transport',
    labelNames: ['transport'] as const,
    registers: [registry],
  });
  const requestDuration = new Histogram({
    name: 'hyphae_worker_request_duration_seconds',
    help: 'Time from receiving a request to sending its reply, queueing included',
    labelNames: ['transport'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const batchSize = new Histogram({
    name: 'hyphae_worker_batch_size',
    help: 'Texts per embedder call after micro-batching',
    buckets: BATCH_BUCKETS,
    registers: [registry],
  });
  const batchDuration = new Histogram({
    name: 'hyphae_worker_batch_duration_seconds',
    help: 'Duration of one embedder call',
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  let queueDepthSample: () => number = () => 0;
  new Gauge({
    name: 'hyphae_worker_queue_depth',
    help: 'Texts waiting for a batch',
    registers: [registry],
    collect(): void {
      this.set(queueDepthSample());
    },
  });

  const trackNats = registerNatsConnectionGauge(registry);

  // Every series of these bounded label sets exists from the first scrape on, so rates see the first event.
  for (const transport of WORKER_TRANSPORTS) {
    texts.inc({ transport }, 0);
    for (const outcome of WORKER_OUTCOMES) requests.inc({ transport, outcome }, 0);
  }

  return {
    registry,
    observeRequest(transport, outcome, count, seconds): void {
      requests.inc({ transport, outcome });
      if (outcome === 'ok') texts.inc({ transport }, count);
      requestDuration.observe({ transport }, seconds);
    },
    observeBatch(count, seconds): void {
      batchSize.observe(count);
      batchDuration.observe(seconds);
    },
    trackQueueDepth(sample): void {
      queueDepthSample = sample;
    },
    trackNatsConnection(connected): void {
      trackNats('embed', connected);
    },
    render: () => registry.metrics(),
    contentType: registry.contentType,
  };
}
