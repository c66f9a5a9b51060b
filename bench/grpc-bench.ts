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
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { Principal } from '../src/core/principal.js';
import { createEmbedder } from '../src/embed/create-embedder.js';
import { resolveGrpcConfig } from '../src/grpc/grpc-config.js';
import { startGrpcServer } from '../src/grpc/grpc-server.js';
import { buildSurfacesApp } from '../src/cli/serve-app.js';
import { resolveHttpConfig } from '../src/http/http-config.js';
import { createHyphaeMetrics } from '../src/metrics/index.js';
import { createMemoryFacade } from '../src/service/index.js';
import { migrate } from '../src/store/migrator.js';
import { openPgliteDb } from '../src/store/pglite-driver.js';
import { percentile, type BenchRow, type BenchSection } from './harness/section.js';
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

type Ops = Record<Side, (i: number) => Promise<void>>;

async function compare(ops: Ops, betweenRounds: () => Promise<void>): Promise<Record<Side, number[]>> {
  let n = 0;
  for (let i = 0; i < WARMUP_OPS; i += 1) for (const side of SIDES) await ops[side]((n += 1));
  await betweenRounds();
  const latencies: Record<Side, number[]> = { facade: [], grpc: [], rest: [], mcp: [] };
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = SIDES.map((_, j) => SIDES[(j + round) % SIDES.length] as Side);
    for (const side of order) {
      for (let i = 0; i < OPS_PER_ROUND; i += 1) {
        n += 1;
        const started = performance.now();
        await ops[side](n);
        latencies[side].push(performance.now() - started);
      }
      await betweenRounds();
    }
  }
  return latencies;
}

const round3 = (value: number): number => Number(value.toFixed(3));
const rate = (values: readonly number[]): number => values.length / (values.reduce((a, b) => a + b, 0) / 1000);

function rowsFor(operation: string, latencies: Record<Side, number[]>): BenchRow[] {
  const rows: BenchRow[] = [];
  const base = latencies.facade;
  for (const side of ['grpc', 'rest', 'mcp'] as const) {
    const values = latencies[side];
    const label = side === 'grpc' ? 'gRPC' : side.toUpperCase();
    rows.push(
      { metric: `${operation} p50 ${label} vs facade`, value: round3(percentile(values, 50)), unit: 'ms', baseline: round3(percentile(base, 50)), ratio: round3(percentile(values, 50) / percentile(base, 50)) },
      { metric: `${operation} p99 ${label} vs facade`, value: round3(percentile(values, 99)), unit: 'ms', baseline: round3(percentile(base, 99)), ratio: round3(percentile(values, 99) / percentile(base, 99)) },
      { metric: `${operation} throughput ${label} vs facade`, value: Math.round(rate(values)), unit: 'ops/s', baseline: Math.round(rate(base)), ratio: round3(rate(values) / rate(base)), note: `${values.length} sequential calls` },
    );
  }
  for (const other of ['rest', 'mcp'] as const) {
    rows.push({
      metric: `${operation} p50 gRPC vs ${other.toUpperCase()}`,
      value: round3(percentile(latencies.grpc, 50)),
      unit: 'ms',
      baseline: round3(percentile(latencies[other], 50)),
      ratio: round3(percentile(latencies.grpc, 50) / percentile(latencies[other], 50)),
    });
  }
  return rows;
}

export async function runGrpcBench(): Promise<BenchSection> {
  const embedder = await createEmbedder({ kind: 'hash' });
  const db = await openPgliteDb();
  await migrate(db, { dimension: embedder.dimension, modelId: embedder.modelId });
  // Recall hits are flushed between rounds, untimed, so no side pays for another's background flush.
  const facade = createMemoryFacade({ db, embedder, config: { hitFlushIntervalMs: 3_600_000 } });
  const key = (await facade.keyAdmin.createKey({ tenant: 'bench', agent: 'bench-agent' })).key;
  const principal: Principal = await facade.authenticate(key);
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
  try {
    for (let i = 0; i < SEED_CELLS; i += 1) await facade.store(principal, { content: text(i), cell_type: 'Fact', salience: 0.5 });
    let next = SEED_CELLS;
    const store = await compare(
      {
        facade: async () => void (await facade.store(principal, { content: text((next += 1)), cell_type: 'Decision', salience: 0.5 })),
        grpc: async () => void (await client.call('Store', { content: text((next += 1)), cell_type: 'Decision' })),
        rest: () => ok(postJson(agent, port, '/v1/cells', key, { content: text((next += 1)), cell_type: 'Decision' }), 201),
        mcp: () => ok(postJson(agent, port, '/mcp', key, tool('store', { content: text((next += 1)), cell_type: 'Decision' }), MCP_ACCEPT), 200),
      },
      () => facade.flushHits(),
    );
    const recall = await compare(
      {
        facade: async (i) => void (await facade.recall(principal, { query: text(i * 7), k: RECALL_K }, { withNodes: true })),
        grpc: async (i) => void (await client.call('Recall', { query: text(i * 7), k: RECALL_K })),
        rest: (i) => ok(postJson(agent, port, '/v1/recall', key, { query: text(i * 7), k: RECALL_K }), 200),
        mcp: (i) => ok(postJson(agent, port, '/mcp', key, tool('recall', { query: text(i * 7), k: RECALL_K }), MCP_ACCEPT), 200),
      },
      () => facade.flushHits(),
    );
    const [load1] = loadavg();
    return {
      name: 'grpc',
      rows: [
        { metric: 'load average (1 min) at the end', value: round3(load1 ?? 0), unit: '', note: `${cpus().length} CPUs; wall-time ratios are only meaningful when this is below the CPU count` },
        ...rowsFor('store', store),
        ...rowsFor(`recall k=${RECALL_K}`, recall),
      ],
    };
  } finally {
    client.close();
    agent.destroy();
    await grpcServer.close();
    await app.close();
    await facade.close();
    await embedder.close();
    await db.close();
  }
}
