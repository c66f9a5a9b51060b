/**
 * gRPC beside REST and MCP on the same facade: store and recall over a real @grpc/grpc-js client
 * (h2c, one channel), REST (keep-alive HTTP/1.1, POST /v1/cells and /v1/recall) and MCP over HTTP
 * (POST /mcp tools/call), each one call at a time, against the facade called directly as the
 * baseline — one database (PGlite), one hash embedder, in one run. Rounds rotate the order of the
 * sides so table growth and warm-up weigh on all alike. Recall over gRPC and REST returns hydrated
 * nodes; MCP's recall tool returns ids and distances (its protocol's shape).
 */
import { Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { HashEmbedder } from '../src/embed/hash-embedder.js';
import { resolveGrpcConfig } from '../src/grpc/grpc-config.js';
import { startGrpcServer } from '../src/grpc/grpc-server.js';
import { buildSurfacesApp } from '../src/cli/serve-app.js';
import { resolveHttpConfig } from '../src/http/http-config.js';
import { createHyphaeMetrics } from '../src/metrics/index.js';
import { openEngine } from './harness/engine.js';
import { round3, sequentialRate, summarise } from './harness/measure.js';
import { loadAverageRow, opRounds, type SideOps } from './harness/op-rounds.js';
import { ratioRow } from './harness/rows.js';
import type { BenchRow, BenchSection } from './harness/section.js';
import { syntheticCorpus } from './corpus.js';
import { postJson, type LoopbackResponse } from './harness/loopback-post.js';

const SEED_CELLS = 500;
const ROUNDS = 8;
const OPS_PER_ROUND = 25;
const WARMUP_OPS = 30;
const RECALL_K = 10;
const SIDES = ['facade', 'grpc', 'rest', 'mcp'] as const;
type Side = (typeof SIDES)[number];

// The Streamable HTTP transport's POST asks for both answers; REST only ever sends JSON.
const MCP_ACCEPT = { accept: 'application/json, text/event-stream' };
const PROTO_ROOT = fileURLToPath(new URL('../proto', import.meta.url));

type Unary = (request: object, metadata: grpc.Metadata, done: (error: grpc.ServiceError | null, reply: unknown) => void) => void;

function grpcCaller(address: string, key: string): { call(method: string, request: object): Promise<unknown>; close(): void } {
  const definition = protoLoader.loadSync(`${PROTO_ROOT}/hyphae/v1/memory.proto`, { keepCase: true, longs: Number, includeDirs: [PROTO_ROOT] });
  const pkg = grpc.loadPackageDefinition(definition) as unknown as { hyphae: { v1: { MemoryService: new (a: string, c: grpc.ChannelCredentials) => grpc.Client } } };
  const client = new pkg.hyphae.v1.MemoryService(address, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  metadata.set('x-hyphae-key', key);
  return {
    call: (method, body) =>
      new Promise((resolve, reject) => {
        const fn = (client as unknown as Record<string, Unary>)[method];
        if (fn === undefined) throw new Error(`no method ${method}`);
        fn.call(client, body, metadata, (error, reply) => (error === null ? resolve(reply) : reject(error)));
      }),
    close: () => client.close(),
  };
}

function rowsFor(operation: string, sides: Record<Side, SideOps>): BenchRow[] {
  const base = summarise(sides.facade.latencies);
  const rows: BenchRow[] = [];
  const grpcP50 = summarise(sides.grpc.latencies).p50;
  for (const side of ['grpc', 'rest', 'mcp'] as const) {
    const values = summarise(sides[side].latencies);
    const label = side === 'grpc' ? 'gRPC' : side.toUpperCase();
    const rate = sequentialRate(values.samples);
    const baseRate = sequentialRate(base.samples);
    rows.push(
      ratioRow(`${operation} p50 ${label} vs facade`, 'ms', values.p50, base.p50),
      ratioRow(`${operation} p99 ${label} vs facade`, 'ms', values.p99, base.p99),
      { metric: `${operation} throughput ${label} vs facade`, value: Math.round(rate), unit: 'ops/s', baseline: Math.round(baseRate), ratio: round3(rate / baseRate), note: `${values.samples.length} sequential calls` },
    );
  }
  for (const other of ['rest', 'mcp'] as const) {
    const otherP50 = summarise(sides[other].latencies).p50;
    rows.push(ratioRow(`${operation} p50 gRPC vs ${other.toUpperCase()}`, 'ms', grpcP50, otherP50));
  }
  return rows;
}

export async function runGrpcBench(): Promise<BenchSection> {
  const embedder = new HashEmbedder();
  // Recall hits are flushed between rounds, untimed, so no side pays for another's background flush.
  const engine = await openEngine(embedder, { key: { agent: 'bench-agent' } });
  const { facade, key, principal } = engine;
  const unlimited = 1_000_000_000;
  const metrics = createHyphaeMetrics();
  const { app } = await buildSurfacesApp({ facade, config: resolveHttpConfig({ rateLimitPerMinute: unlimited }), readiness: [], metrics, logger: false, version: 'bench' });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  const grpcServer = await startGrpcServer({ facade, config: resolveGrpcConfig({ rateLimitPerMinute: unlimited }), readiness: [], metrics }, { host: '127.0.0.1', port: 0 });
  const client = grpcCaller(grpcServer.address, key);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const corpus = syntheticCorpus(SEED_CELLS + SIDES.length * (WARMUP_OPS + ROUNDS * OPS_PER_ROUND) + 10, 11);
  const text = (i: number): string => corpus[i % corpus.length] ?? `cell ${i}`;
  const ok = async (response: Promise<LoopbackResponse>, expected: number): Promise<void> => {
    const { status, body } = await response;
    if (status !== expected || body.includes('"error"')) throw new Error(`answered ${status}: ${body.slice(0, 200)}`);
  };
  const tool = (name: string, args: object): object => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
  const options = { warmupOps: WARMUP_OPS, rounds: ROUNDS, opsPerRound: OPS_PER_ROUND, between: () => facade.flushHits() };
  try {
    for (let i = 0; i < SEED_CELLS; i += 1) await facade.store(principal, { content: text(i), cell_type: 'Fact', salience: 0.5 });
    let next = SEED_CELLS;
    const store = await opRounds(
      {
        facade: async () => void (await facade.store(principal, { content: text((next += 1)), cell_type: 'Decision', salience: 0.5 })),
        grpc: async () => void (await client.call('Store', { content: text((next += 1)), cell_type: 'Decision' })),
        rest: () => ok(postJson(agent, port, '/v1/cells', key, { content: text((next += 1)), cell_type: 'Decision' }), 201),
        mcp: () => ok(postJson(agent, port, '/mcp', key, tool('store', { content: text((next += 1)), cell_type: 'Decision' }), MCP_ACCEPT), 200),
      },
      options,
    );
    const recall = await opRounds(
      {
        facade: async (i) => void (await facade.recall(principal, { query: text(i * 7), k: RECALL_K }, { withNodes: true })),
        grpc: async (i) => void (await client.call('Recall', { query: text(i * 7), k: RECALL_K })),
        rest: (i) => ok(postJson(agent, port, '/v1/recall', key, { query: text(i * 7), k: RECALL_K }), 200),
        mcp: (i) => ok(postJson(agent, port, '/mcp', key, tool('recall', { query: text(i * 7), k: RECALL_K }), MCP_ACCEPT), 200),
      },
      options,
    );
    return {
      name: 'grpc',
      rows: [
        loadAverageRow(),
        ...rowsFor('store', store),
        ...rowsFor(`recall k=${RECALL_K}`, recall),
      ],
    };
  } finally {
    client.close();
    agent.destroy();
    await grpcServer.close();
    await app.close();
    await engine.close();
    await embedder.close();
  }
}
