/**
 * One `hyphae serve` replica in this process, built by the code `serve` runs: the composition root
 * (src/app: facade, outbox relay, live feed, metrics) and the serve app
 * (src/cli/serve-app.ts) on its own port — with a database pool, bus and embedder the test hands
 * it, shorter background loops, and limits that let tests send many requests.
 */
import type { FastifyInstance } from 'fastify';
import { openHyphaeApp } from '../../../src/app/index.js';
import { buildServeAppWithStreams } from '../../../src/cli/serve-app.js';
import { loadConfig } from '../../../src/core/config.js';
import type { Embedder } from '../../../src/embed/embedder.js';
import type { PushStream } from '../../../src/mcp/transports/push-stream.js';
import type { ListenPushStreams } from '../../../src/mcp/transports/listen-push-streams.js';
import type { Bus } from '../../../src/mesh/bus.js';
import type { LiveDiffFeed } from '../../../src/mesh/live-diff-feed.js';
import type { OutboxRelay } from '../../../src/mesh/outbox-relay.js';
import type { HyphaeMetrics } from '../../../src/metrics/index.js';
import type { ManagedMemoryFacade } from '../../../src/service/index.js';
import type { FacadeConfig } from '../../../src/service/facade-config.js';
import type { Db } from '../../../src/store/db.js';

export interface MeshReplica {
  readonly name: string;
  readonly url: string;
  readonly db: Db;
  readonly bus: Bus;
  readonly facade: ManagedMemoryFacade;
  readonly relay: OutboxRelay;
  readonly feed: LiveDiffFeed;
  readonly liveStream: PushStream;
  /** The subscriptions/listen pushes (MCP 2026-07-28). */
  readonly listenStreams: ListenPushStreams;
  readonly app: FastifyInstance;
  readonly metrics: HyphaeMetrics;
  readonly errors: unknown[];
  close(): Promise<void>;
}

export interface MeshReplicaOptions {
  readonly name: string;
  /** Owned by the replica from here: closed with it. */
  readonly db: Db;
  readonly bus: Bus;
  /** Shared by the test's replicas and closed by the test. */
  readonly embedder: Embedder;
  readonly heartbeatMs?: number;
  readonly maxBufferedBytes?: number;
  readonly refreshIntervalMs?: number;
  readonly relayPollMs?: number;
  readonly maxBackoffMs?: number;
  readonly facade?: Partial<FacadeConfig>;
  /** Settings as `serve` reads them (e.g. HYPHAE_MCP_CHANNEL_MIN_TRUST), over the replica's defaults. */
  readonly env?: Readonly<Record<string, string>>;
}

export async function startMeshReplica(options: MeshReplicaOptions): Promise<MeshReplica> {
  const { db, bus } = options;
  const errors: unknown[] = [];
  const { embedder } = options;
  // Each replica closes what it holds; the embedder is the test's to close, once.
  const borrowed: Embedder = { modelId: embedder.modelId, dimension: embedder.dimension, embed: (texts) => embedder.embed(texts), close: async () => undefined };
  const config = loadConfig({
    HYPHAE_EMBEDDER: 'hash',
    HYPHAE_LOG_LEVEL: 'silent',
    // Tests send thousands of requests per key and many bad keys on purpose; the limiters have tests of their own.
    HYPHAE_RATE_LIMIT_PER_MINUTE: '1000000',
    HYPHAE_FAILED_AUTH_PER_MINUTE: '1000000',
    ...options.env,
  });
  const hyphae = await openHyphaeApp(config, {
    command: `mesh replica ${options.name}`,
    onBackgroundError: (error) => errors.push(error),
    parts: {
      db,
      bus,
      embedder: borrowed,
      authCacheTtlMs: 0,
      relayPollMs: options.relayPollMs ?? 1_000,
      relayMaxBackoffMs: options.maxBackoffMs ?? 500,
      feedRefreshMs: options.refreshIntervalMs ?? 2_000,
      ...(options.facade === undefined ? {} : { facade: options.facade }),
    },
  });
  try {
    const { app, pushStream, listenStreams } = await buildServeAppWithStreams(hyphae, {
      logger: false,
      pushStream: {
        heartbeatMs: options.heartbeatMs ?? 15_000,
        ...(options.maxBufferedBytes === undefined ? {} : { maxBufferedBytes: options.maxBufferedBytes }),
      },
    });
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    return {
      name: options.name,
      url,
      db: hyphae.db,
      bus,
      facade: hyphae.facade,
      relay: hyphae.relay,
      feed: hyphae.feed,
      liveStream: pushStream,
      listenStreams,
      app,
      metrics: hyphae.metrics,
      errors,
      async close(): Promise<void> {
        await app.close();
        await hyphae.close();
      },
    };
  } catch (error) {
    await hyphae.close();
    throw error;
  }
}

/** Calls one MCP tool over POST /mcp and returns its structuredContent. */
export async function callTool(url: string, key: string, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', 'x-hyphae-key': key },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  const body = (await response.json()) as { result?: { structuredContent?: Record<string, unknown> }; error?: unknown };
  if (!body.result?.structuredContent) throw new Error(`tool ${name} failed: ${JSON.stringify(body.error ?? body)}`);
  return body.result.structuredContent;
}
