/**
 * Prometheus metrics of one Hyphae process. The composition root meters the facade and the
 * embedder with it, and the surfaces report into it, always through this small typed API (never
 * prom-client directly), so names, buckets and label sets stay in one place and labels stay
 * low-cardinality: no ids, keys, tenants or raw URLs ever become labels.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { StreamDropReason, StreamDropTransport } from './stream-drop-reason.js';

export type McpCallOutcome = 'ok' | 'error' | 'invalid';
export type DiffTransport = 'bus' | 'sse' | 'grpc' | 'inbox' | 'pull';

/** Structurally the store's `PoolStats`: sampled at scrape time. */
export interface DbPoolSample {
  readonly total: number;
  readonly idle: number;
  readonly waiting: number;
}

export interface HyphaeMetrics {
  /** The registry `GET /metrics` renders; tests and embedders may read it. */
  readonly registry: Registry;
  /** `route` is the route pattern (`/v1/cells/:id`), never the raw URL. */
  observeHttpRequest(method: string, route: string, status: number, seconds: number): void;
  observeMcpCall(tool: string, outcome: McpCallOutcome, seconds: number): void;
  /** One MemoryService call: `method` is the RPC name (the router only routes known ones), `code` its status name. */
  observeGrpcCall(method: string, code: string, seconds: number): void;
  observeStore(seconds: number): void;
  observeRecall(seconds: number): void;
  /** One call of the embedder: its latency and how many texts it embedded. */
  observeEmbed(seconds: number, batchSize: number): void;
  countDiffsProduced(count: number): void;
  /** Diffs deleted from full inboxes, oldest first, to keep each within its size. */
  countInboxTrimmed(count: number): void;
  countDiffsDelivered(transport: DiffTransport, count: number): void;
  /** Age of the oldest diff not yet published by the outbox relay (0 when empty). */
  setOutboxLag(seconds: number): void;
  /** +1 when a live stream (SSE, MCP listen, gRPC WatchDiffs) opens, -1 when it closes. */
  addLiveStreams(delta: number): void;
  /** A live stream ended by backpressure (its client read too slowly, or its catch-up outgrew the bound). */
  countStreamsDropped(transport: StreamDropTransport, reason: StreamDropReason): void;
  /** Registers the sampler read on each scrape; the last registration wins. */
  trackDbPool(sample: () => DbPoolSample): void;
  render(): Promise<string>;
  readonly contentType: string;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];
const KNOWN_MCP_TOOLS = new Set([
  'store',
  'recall',
  'query',
  'open_session',
  'close_session',
  'place_beacon',
  'list_beacons',
  'pull_diffs',
  'get_scene',
  'list_scenes',
  'drain_inbox',
]);

export function createHyphaeMetrics(): HyphaeMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by method, route pattern and status code',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const mcpCalls = new Counter({
    name: 'hyphae_mcp_calls_total',
    help: 'MCP tool calls by tool and outcome',
    labelNames: ['tool', 'outcome'] as const,
    registers: [registry],
  });
  const mcpDuration = new Histogram({
    name: 'hyphae_mcp_call_duration_seconds',
    help: 'MCP tool call duration by tool',
    labelNames: ['tool'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const grpcCalls = new Counter({
    name: 'hyphae_grpc_calls_total',
    help: 'gRPC MemoryService calls by method and status code',
    labelNames: ['method', 'code'] as const,
    registers: [registry],
  });
  const grpcDuration = new Histogram({
    name: 'hyphae_grpc_call_duration_seconds',
    help: 'gRPC MemoryService call duration by method (a stream counts until it ends)',
    labelNames: ['method'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const storeDuration = new Histogram({
    name: 'hyphae_store_duration_seconds',
    help: 'Duration of storing one cell (embedding, insert, beacon matching, outbox)',
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const recallDuration = new Histogram({
    name: 'hyphae_recall_duration_seconds',
    help: 'Duration of one recall or query',
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const embedDuration = new Histogram({
    name: 'hyphae_embed_duration_seconds',
    help: 'Duration of one embedder call',
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const embedBatch = new Histogram({
    name: 'hyphae_embed_batch_size',
    help: 'Texts per embedder call',
    buckets: BATCH_BUCKETS,
    registers: [registry],
  });
  const diffsProduced = new Counter({
    name: 'hyphae_diffs_produced_total',
    help: 'Diffs written to inboxes',
    registers: [registry],
  });
  const inboxTrimmed = new Counter({
    name: 'hyphae_inbox_trimmed_total',
    help: 'Diffs deleted from full inboxes (oldest first)',
    registers: [registry],
  });
  const diffsDelivered = new Counter({
    name: 'hyphae_diffs_delivered_total',
    help: 'Diffs delivered, by transport',
    labelNames: ['transport'] as const,
    registers: [registry],
  });
  const outboxLag = new Gauge({
    name: 'hyphae_outbox_lag_seconds',
    help: 'Age of the oldest unpublished outbox entry',
    registers: [registry],
  });
  const liveStreams = new Gauge({
    name: 'hyphae_live_streams',
    help: 'Live diff streams currently open',
    registers: [registry],
  });
  const streamsDropped = new Counter({
    name: 'hyphae_live_streams_dropped_total',
    help: 'Live streams ended by backpressure, by transport and reason',
    labelNames: ['transport', 'reason'] as const,
    registers: [registry],
  });
  let poolSampler: (() => DbPoolSample) | undefined;
  new Gauge({
    name: 'hyphae_db_pool_connections',
    help: 'Database pool connections by state',
    labelNames: ['state'] as const,
    registers: [registry],
    collect(): void {
      const sample = poolSampler?.() ?? { total: 0, idle: 0, waiting: 0 };
      this.set({ state: 'in_use' }, Math.max(0, sample.total - sample.idle));
      this.set({ state: 'idle' }, sample.idle);
      this.set({ state: 'waiting' }, sample.waiting);
    },
  });

  // Touch the unlabelled families so every family is exported from the first scrape on.
  diffsProduced.inc(0);
  outboxLag.set(0);
  liveStreams.set(0);

  return {
    registry,
    contentType: registry.contentType,
    observeHttpRequest(method, route, status, seconds): void {
      httpDuration.observe({ method, route, status: String(status) }, seconds);
    },
    observeMcpCall(tool, outcome, seconds): void {
      // Unknown tool names come from clients; folding them keeps the label set bounded.
      const label = KNOWN_MCP_TOOLS.has(tool) ? tool : 'unknown';
      mcpCalls.inc({ tool: label, outcome });
      mcpDuration.observe({ tool: label }, seconds);
    },
    observeGrpcCall(method, code, seconds): void {
      grpcCalls.inc({ method, code });
      grpcDuration.observe({ method }, seconds);
    },
    observeStore(seconds): void {
      storeDuration.observe(seconds);
    },
    observeRecall(seconds): void {
      recallDuration.observe(seconds);
    },
    observeEmbed(seconds, batchSize): void {
      embedDuration.observe(seconds);
      embedBatch.observe(batchSize);
    },
    countDiffsProduced(count): void {
      diffsProduced.inc(count);
    },
    countInboxTrimmed(count): void {
      if (count > 0) inboxTrimmed.inc(count);
    },
    countDiffsDelivered(transport, count): void {
      diffsDelivered.inc({ transport }, count);
    },
    setOutboxLag(seconds): void {
      outboxLag.set(seconds);
    },
    addLiveStreams(delta): void {
      liveStreams.inc(delta);
    },
    countStreamsDropped(transport, reason): void {
      streamsDropped.inc({ transport, reason });
    },
    trackDbPool(sample): void {
      poolSampler = sample;
    },
    render(): Promise<string> {
      return registry.metrics();
    },
  };
}
