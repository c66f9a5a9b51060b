/**
 * Prometheus metrics of one Hyphae process. The composition root meters the facade and the
 * embedder with it, and the surfaces report into it, always through this small typed API (never
 * prom-client directly), so names, buckets and label sets stay in one place and labels stay
 * low-cardinality: no ids, keys, tenants or raw URLs ever become labels.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { registerDependencyGauges } from './dependency-gauges.js';
import { registerFeedbackMetrics, type FeedbackMetrics } from './feedback-metrics.js';
import type { DependencyGauges } from './dependency-gauges.js';
import { STREAM_DROP_REASONS, STREAM_DROP_TRANSPORTS } from './stream-drop-reason.js';
import type { StreamDropReason, StreamDropTransport } from './stream-drop-reason.js';

export type McpCallOutcome = 'ok' | 'error' | 'invalid';
export const DIFF_TRANSPORTS = ['bus', 'sse', 'grpc', 'inbox', 'pull'] as const;
export type DiffTransport = (typeof DIFF_TRANSPORTS)[number];

export interface HyphaeMetrics extends DependencyGauges, FeedbackMetrics {
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
  /** One embedder call that failed, by the error's stable code (UNAVAILABLE when no worker answered). */
  countEmbedError(code: string): void;
  /** Seconds from a diff's commit to its hand-off to a live stream opened before it was written. */
  observeDiffPushDelay(seconds: number): void;
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
  render(): Promise<string>;
  readonly contentType: string;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];
/** Gossip objectives are stated at 2 s (docs/operations.md); a stalled relay shows as minutes. */
const PUSH_DELAY_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300];
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

export interface HyphaeMetricsOptions {
  /** Label the feedback counters by tenant too (HYPHAE_METRICS_TENANT_LABEL): one series per tenant, so only when the operator asks. */
  readonly tenantLabel?: boolean;
}

export function createHyphaeMetrics(options: HyphaeMetricsOptions = {}): HyphaeMetrics {
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
  const embedErrors = new Counter({
    name: 'hyphae_embed_errors_total',
    help: 'Embedder calls that failed, by error code',
    labelNames: ['code'] as const,
    registers: [registry],
  });
  const pushDelay = new Histogram({
    name: 'hyphae_diff_push_delay_seconds',
    help: 'Seconds from a diff being committed to its hand-off to a live stream',
    buckets: PUSH_DELAY_BUCKETS,
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
  const dependencies = registerDependencyGauges(registry);
  const feedback = registerFeedbackMetrics(registry, options.tenantLabel === true);

  // Touch every family with a bounded label set, so each series exists from the first scrape on
  // (a rate over a counter that appears at 1 misses that first event).
  diffsProduced.inc(0);
  outboxLag.set(0);
  liveStreams.set(0);
  embedErrors.inc({ code: 'UNAVAILABLE' }, 0);
  for (const transport of DIFF_TRANSPORTS) diffsDelivered.inc({ transport }, 0);
  for (const transport of STREAM_DROP_TRANSPORTS) for (const reason of STREAM_DROP_REASONS) streamsDropped.inc({ transport, reason }, 0);

  return {
    ...feedback,
    ...dependencies,
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
    countEmbedError(code): void {
      embedErrors.inc({ code });
    },
    observeDiffPushDelay(seconds): void {
      pushDelay.observe(Math.max(0, seconds));
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
    render(): Promise<string> {
      return registry.metrics();
    },
  };
}
