/**
 * One `hyphae serve`-equivalent replica in this process: its own pool on the shared database,
 * its own bus connection, outbox relay and live feed, and its own HTTP server with POST/GET /mcp.
 */
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import type { Embedder } from '../../src/embed/embedder.js';
import { createHyphaeMetrics, type HyphaeMetrics } from '../../src/http/metrics.js';
import { registerMcpRoutes } from '../../src/mcp/http-routes.js';
import { createLiveStream } from '../../src/mcp/live-stream.js';
import type { LiveStreamEndpoint } from '../../src/mcp/live-stream.js';
import type { HttpListenStreams } from '../../src/mcp/modern/http-listen.js';
import type { Bus } from '../../src/mesh/bus.js';
import { LiveDiffFeed } from '../../src/mesh/live-diff-feed.js';
import { OutboxRelay } from '../../src/mesh/outbox-relay.js';
import { createMemoryFacade } from '../../src/service/create-memory-facade.js';
import type { ManagedMemoryFacade } from '../../src/service/create-memory-facade.js';
import type { FacadeConfig } from '../../src/service/facade-config.js';
import type { Db } from '../../src/store/db.js';

export interface MeshReplica {
  readonly name: string;
  readonly url: string;
  readonly db: Db;
  readonly bus: Bus;
  readonly facade: ManagedMemoryFacade;
  readonly relay: OutboxRelay;
  readonly feed: LiveDiffFeed;
  readonly liveStream: LiveStreamEndpoint;
  /** The modern era's subscriptions/listen streams (MCP 2026-07-28). */
  readonly listenStreams: HttpListenStreams;
  readonly app: FastifyInstance;
  readonly metrics: HyphaeMetrics;
  readonly errors: unknown[];
  close(): Promise<void>;
}

export interface MeshReplicaOptions {
  readonly name: string;
  readonly db: Db;
  readonly bus: Bus;
  readonly embedder: Embedder;
  readonly heartbeatMs?: number;
  readonly maxBufferedBytes?: number;
  readonly refreshIntervalMs?: number;
  readonly relayPollMs?: number;
  readonly maxBackoffMs?: number;
  readonly facade?: Partial<FacadeConfig>;
}

export async function startMeshReplica(options: MeshReplicaOptions): Promise<MeshReplica> {
  const { db, bus } = options;
  const errors: unknown[] = [];
  const onError = (error: unknown): void => {
    errors.push(error);
  };
  const relay = new OutboxRelay({
    db,
    bus,
    pollIntervalMs: options.relayPollMs ?? 1_000,
    maxBackoffMs: options.maxBackoffMs ?? 500,
    onError,
  });
  const feed = new LiveDiffFeed({ db, bus, refreshIntervalMs: options.refreshIntervalMs ?? 2_000, onError });
  const facade = createMemoryFacade({
    db,
    embedder: options.embedder,
    authCacheTtlMs: 0,
    ...(options.facade === undefined ? {} : { config: options.facade }),
    outbox: relay,
    diffFeed: feed,
    onBeaconsChanged: (tenantId, agent) => void feed.beaconsChanged(tenantId, agent),
  });
  const metrics = createHyphaeMetrics();
  const liveStream = createLiveStream({
    facade,
    metrics,
    heartbeatMs: options.heartbeatMs ?? 15_000,
    ...(options.maxBufferedBytes === undefined ? {} : { maxBufferedBytes: options.maxBufferedBytes }),
  });
  const app = Fastify({ logger: false });
  const { listenStreams } = registerMcpRoutes(app, { facade, liveStream: liveStream.handler, streamDrops: metrics });
  app.addHook('preClose', async () => liveStream.closeAll());
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  relay.start();
  return {
    name: options.name,
    url,
    db,
    bus,
    facade,
    relay,
    feed,
    liveStream,
    listenStreams,
    app,
    metrics,
    errors,
    async close(): Promise<void> {
      await app.close();
      await relay.stop();
      await feed.close();
      await facade.close();
      await bus.close();
      await db.close();
    },
  };
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
