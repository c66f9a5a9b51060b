/**
 * REST overhead: store and recall over a real socket (`buildHttpApp` listening on loopback, a
 * keep-alive HTTP client) against the same operations called on the facade directly, in one run
 * on one database with the hash embedder. Rounds alternate between the two so table growth and
 * warm-up weigh on both alike. Target: HTTP adds ≤ 15% at p50.
 */
import { Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import type { Principal } from '../src/core/principal.js';
import { createEmbedder } from '../src/embed/create-embedder.js';
import { buildHttpApp } from '../src/http/build-http-app.js';
import { resolveHttpConfig } from '../src/http/http-config.js';
import { createHyphaeMetrics } from '../src/metrics/index.js';
import { createMemoryFacade } from '../src/service/index.js';
import { migrate } from '../src/store/migrator.js';
import { openPgliteDb } from '../src/store/pglite-driver.js';
import { percentile, type BenchRow, type BenchSection } from './harness/section.js';
import { syntheticCorpus } from './corpus.js';
import { postJson } from './harness/loopback-post.js';

const SEED_CELLS = 1_000;
const ROUNDS = 10;
const OPS_PER_ROUND = 40;
const WARMUP_OPS = 50;
const RECALL_K = 10;

async function timed(op: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await op();
  return performance.now() - started;
}

interface Comparison {
  readonly direct: number[];
  readonly rest: number[];
  /** Process CPU milliseconds spent on each side (client and server share the process). */
  readonly cpu: { direct: number; rest: number };
}

/** Alternating rounds of `direct(i)` and `rest(i)`; latencies in milliseconds. */
async function compare(
  direct: (i: number) => Promise<void>,
  rest: (i: number) => Promise<void>,
  betweenRounds: () => Promise<void>,
): Promise<Comparison> {
  for (let i = 0; i < WARMUP_OPS; i += 1) {
    await direct(i);
    await rest(i);
  }
  await betweenRounds();
  const result: Comparison = { direct: [], rest: [], cpu: { direct: 0, rest: 0 } };
  let n = WARMUP_OPS;
  for (let round = 0; round < ROUNDS; round += 1) {
    const restFirst = round % 2 === 1;
    for (const side of restFirst ? (['rest', 'direct'] as const) : (['direct', 'rest'] as const)) {
      const op = side === 'direct' ? direct : rest;
      const cpuStart = process.cpuUsage();
      for (let i = 0; i < OPS_PER_ROUND; i += 1) {
        n += 1;
        result[side].push(await timed(() => op(n)));
      }
      const cpu = process.cpuUsage(cpuStart);
      result.cpu[side] += (cpu.user + cpu.system) / 1000;
      await betweenRounds();
    }
  }
  return result;
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function round3(value: number): number {
  return Number(value.toFixed(3));
}

function rowsFor(operation: string, comparison: Comparison): BenchRow[] {
  const directP50 = percentile(comparison.direct, 50);
  const restP50 = percentile(comparison.rest, 50);
  const directP99 = percentile(comparison.direct, 99);
  const restP99 = percentile(comparison.rest, 99);
  const directRate = comparison.direct.length / (sum(comparison.direct) / 1000);
  const restRate = comparison.rest.length / (sum(comparison.rest) / 1000);
  const n = `${comparison.rest.length} sequential ops each side`;
  return [
    { metric: `${operation} p50 REST vs facade`, value: round3(restP50), unit: 'ms', baseline: round3(directP50), ratio: round3(restP50 / directP50), target: '≤ 1.15', note: n },
    { metric: `${operation} p99 REST vs facade`, value: round3(restP99), unit: 'ms', baseline: round3(directP99), ratio: round3(restP99 / directP99) },
    { metric: `${operation} throughput REST vs facade`, value: Math.round(restRate), unit: 'ops/s', baseline: Math.round(directRate), ratio: round3(restRate / directRate) },
    {
      metric: `${operation} CPU per op REST vs facade`,
      value: round3(comparison.cpu.rest / comparison.rest.length),
      unit: 'ms',
      baseline: round3(comparison.cpu.direct / comparison.direct.length),
      ratio: round3(comparison.cpu.rest / comparison.rest.length / (comparison.cpu.direct / comparison.direct.length)),
      note: 'HTTP client included; less sensitive to a busy machine than wall time',
    },
    { metric: `${operation} HTTP added at p50`, value: round3(restP50 - directP50), unit: 'ms' },
  ];
}

export async function runRestBench(): Promise<BenchSection> {
  const embedder = await createEmbedder({ kind: 'hash' });
  const db = await openPgliteDb();
  await migrate(db, { dimension: embedder.dimension, modelId: embedder.modelId });
  // Recall hits are flushed between rounds, untimed: a background flush landing inside one side's
  // round would charge that side for database work that has nothing to do with HTTP.
  const facade = createMemoryFacade({ db, embedder, config: { hitFlushIntervalMs: 3_600_000 } });
  const created = await facade.keyAdmin.createKey({ tenant: 'bench', agent: 'bench-agent' });
  const key = created.key;
  const principal: Principal = await facade.authenticate(key);
  const app = await buildHttpApp({
    facade,
    config: resolveHttpConfig({ rateLimitPerMinute: 1_000_000_000 }),
    readiness: [],
    metrics: createHyphaeMetrics(),
    logger: false,
    version: 'bench',
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const corpus = syntheticCorpus(SEED_CELLS + 2 * (WARMUP_OPS + ROUNDS * OPS_PER_ROUND) + 10, 7);
  const text = (i: number): string => corpus[i % corpus.length] ?? `cell ${i}`;
  try {
    for (let i = 0; i < SEED_CELLS; i += 1) await facade.store(principal, { content: text(i), cell_type: 'Fact', salience: 0.5 });

    let storeIndex = SEED_CELLS;
    const store = await compare(
      async () => {
        await facade.store(principal, { content: text((storeIndex += 1)), cell_type: 'Decision', salience: 0.5 });
      },
      async () => {
        const response = await postJson(agent, port, '/v1/cells', key, { content: text((storeIndex += 1)), cell_type: 'Decision' });
        if (response.status !== 201) throw new Error(`REST store answered ${response.status}: ${response.body}`);
      },
      () => facade.flushHits(),
    );
    const recall = await compare(
      async (i) => {
        await facade.recall(principal, { query: text(i * 7), k: RECALL_K }, { withNodes: true });
      },
      async (i) => {
        const response = await postJson(agent, port, '/v1/recall', key, { query: text(i * 7), k: RECALL_K });
        if (response.status !== 200) throw new Error(`REST recall answered ${response.status}: ${response.body}`);
      },
      () => facade.flushHits(),
    );
    const [load1] = loadavg();
    return {
      name: 'rest',
      rows: [
        { metric: 'load average (1 min) at the end', value: round3(load1 ?? 0), unit: '', note: `${cpus().length} CPUs; wall-time ratios are only meaningful when this is below the CPU count` },
        ...rowsFor('store', store),
        ...rowsFor(`recall k=${RECALL_K} (hydrated nodes)`, recall),
      ],
    };
  } finally {
    agent.destroy();
    await app.close();
    await facade.close();
    await embedder.close();
    await db.close();
  }
}
