/**
 * REST overhead: store and recall over a real socket (`buildHttpApp` listening on loopback, a
 * keep-alive HTTP client) against the same operations called on the facade directly, in one run
 * on one database with the hash embedder. Rounds alternate between the two so table growth and
 * warm-up weigh on both alike. Target: HTTP adds ≤ 15% at p50.
 */
import { Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HashEmbedder } from '../src/embed/hash-embedder.js';
import { buildHttpApp } from '../src/http/build-http-app.js';
import { resolveHttpConfig } from '../src/http/http-config.js';
import { createHyphaeMetrics } from '../src/metrics/index.js';
import { syntheticCorpus } from './corpus.js';
import { openEngine } from './harness/engine.js';
import { postJson } from './harness/loopback-post.js';
import { perSecond, round3, summarise } from './harness/measure.js';
import { loadAverageRow, opRounds, type SideOps } from './harness/op-rounds.js';
import { ratioRow } from './harness/rows.js';
import type { BenchRow, BenchSection } from './harness/section.js';

const SEED_CELLS = 1_000;
const ROUNDS = 10;
const OPS_PER_ROUND = 40;
const WARMUP_OPS = 50;
const RECALL_K = 10;

function rowsFor(operation: string, direct: SideOps, rest: SideOps): BenchRow[] {
  const d = summarise(direct.latencies);
  const r = summarise(rest.latencies);
  const directRate = perSecond(d.samples.length, d.totalMs);
  const restRate = perSecond(r.samples.length, r.totalMs);
  const restCpu = rest.cpuMs / r.samples.length;
  const directCpu = direct.cpuMs / d.samples.length;
  return [
    ratioRow(`${operation} p50 REST vs facade`, 'ms', r.p50, d.p50, { target: '≤ 1.15', note: `${r.samples.length} sequential ops each side` }),
    ratioRow(`${operation} p99 REST vs facade`, 'ms', r.p99, d.p99),
    { metric: `${operation} throughput REST vs facade`, value: Math.round(restRate), unit: 'ops/s', baseline: Math.round(directRate), ratio: round3(restRate / directRate) },
    ratioRow(`${operation} CPU per op REST vs facade`, 'ms', restCpu, directCpu, { note: 'HTTP client included; less sensitive to a busy machine than wall time' }),
    { metric: `${operation} HTTP added at p50`, value: round3(r.p50 - d.p50), unit: 'ms' },
  ];
}

export async function runRestBench(): Promise<BenchSection> {
  const embedder = new HashEmbedder();
  // Recall hits are flushed between rounds, untimed: a background flush landing inside one side's
  // round would charge that side for database work that has nothing to do with HTTP.
  const { facade, key, principal, close } = await openEngine(embedder, { key: { agent: 'bench-agent' } });
  const app = await buildHttpApp({ facade, config: resolveHttpConfig({ rateLimitPerMinute: 1_000_000_000 }), readiness: [], metrics: createHyphaeMetrics(), logger: false, version: 'bench' });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const corpus = syntheticCorpus(SEED_CELLS + 2 * (WARMUP_OPS + ROUNDS * OPS_PER_ROUND) + 10, 7);
  const text = (i: number): string => corpus[i % corpus.length] ?? `cell ${i}`;
  const expectStatus = async (what: string, response: Promise<{ status: number; body: string }>, status: number): Promise<void> => {
    const answered = await response;
    if (answered.status !== status) throw new Error(`REST ${what} answered ${answered.status}: ${answered.body}`);
  };
  const options = { warmupOps: WARMUP_OPS, rounds: ROUNDS, opsPerRound: OPS_PER_ROUND, between: () => facade.flushHits() };
  try {
    for (let i = 0; i < SEED_CELLS; i += 1) await facade.store(principal, { content: text(i), cell_type: 'Fact', salience: 0.5 });
    let storeIndex = SEED_CELLS;
    const store = await opRounds(
      {
        direct: async () => void (await facade.store(principal, { content: text((storeIndex += 1)), cell_type: 'Decision', salience: 0.5 })),
        rest: () => expectStatus('store', postJson(agent, port, '/v1/cells', key, { content: text((storeIndex += 1)), cell_type: 'Decision' }), 201),
      },
      options,
    );
    const recall = await opRounds(
      {
        direct: async (i) => void (await facade.recall(principal, { query: text(i * 7), k: RECALL_K }, { withNodes: true })),
        rest: (i) => expectStatus('recall', postJson(agent, port, '/v1/recall', key, { query: text(i * 7), k: RECALL_K }), 200),
      },
      options,
    );
    return {
      name: 'rest',
      rows: [loadAverageRow(), ...rowsFor('store', store.direct, store.rest), ...rowsFor(`recall k=${RECALL_K} (hydrated nodes)`, recall.direct, recall.rest)],
    };
  } finally {
    agent.destroy();
    await app.close();
    await close();
    await embedder.close();
  }
}
