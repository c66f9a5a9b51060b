/**
 * The live parts of `npm run bench scale`, against real `hyphae serve` processes on native
 * PostgreSQL (hash embedder: what is measured is the server, not a model):
 * - live streams: N agents each holding one `GET /mcp` diff stream open on one API process —
 *   its memory per stream against the same process idle, its idle CPU, and push latency (a store
 *   sent → the diff read off a watcher's stream) with N streams open against one stream open;
 * - concurrent agents: M agents storing at once over REST across two API processes (replicas),
 *   against one client on one replica: throughput, p50/p99, refusals.
 */
import { execFileSync, spawn } from 'node:child_process';
import { Agent, request, type IncomingMessage } from 'node:http';
import { HashEmbedder } from '../src/embed/hash-embedder.js';
import type { Principal } from '../src/core/principal.js';
import { createMemoryFacade, type ManagedMemoryFacade } from '../src/service/index.js';
import { migrate } from '../src/store/migrator.js';
import { openPgDb } from '../src/store/pg-driver.js';
import type { RealPostgres } from '../test/support/real-postgres.js';
import { round } from './harness/measure.js';
import { percentile, type BenchRow } from './harness/section.js';
import { announced, HYPHAE_BIN, REPO_ROOT, stopChild } from './harness/processes.js';
import { processCpuMs, processRssBytes, processTreeCpuMs } from './harness/process-cpu.js';
import { syntheticCorpus } from './corpus.js';
import { postJson } from './harness/loopback-post.js';
import { createDatabase, postmasterPid } from './harness/postgres.js';

const TENANT = 'live';
const WATCHERS = 20;
const INTEREST = 'rotate the ledger database credentials before the audit';
const PUSHES = 30;
const OPEN_CONCURRENCY = 200;
const IDLE_SAMPLE_MS = 10_000;
const BASE_STORES = 200;
const STORES_PER_AGENT = 3;

const r3 = (x: number): number => round(x);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface ServeProcess {
  readonly port: number;
  readonly pid: number;
  close(): Promise<void>;
}

async function startServe(databaseUrl: string, maxStreams: number): Promise<ServeProcess> {
  const child = spawn(process.execPath, [HYPHAE_BIN, 'serve', '--host', '127.0.0.1', '--port', '0'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      HYPHAE_DATABASE_URL: databaseUrl,
      HYPHAE_EMBEDDER: 'hash',
      HYPHAE_GRPC_PORT: '0',
      HYPHAE_LOG_LEVEL: 'warn',
      HYPHAE_RATE_LIMIT_PER_MINUTE: '1000000000',
      HYPHAE_MAX_STREAMS_PER_PROCESS: String(maxStreams),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const [, port] = await announced(child, /serving on http:\/\/127\.0\.0\.1:(\d+)/, 'hyphae serve');
  return { port: Number(port), pid: child.pid as number, close: () => stopChild(child) };
}

interface DiffStreamClient {
  close(): void;
}

/** Opens `GET /mcp` as a diff stream; `onDiff` hears each diff notification as it is read. Resolves once the server answered 200. */
function openDiffStream(port: number, key: string, onDiff: () => void): Promise<DiffStreamClient> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/mcp', method: 'GET', agent: false, headers: { accept: 'text/event-stream', 'x-hyphae-key': key, 'x-hyphae-diffs': 'on' } });
    req.on('error', reject);
    req.on('response', (res: IncomingMessage) => {
      if (res.statusCode !== 200) {
        reject(new Error(`GET /mcp answered ${String(res.statusCode)}`));
        res.resume();
        return;
      }
      let pending = '';
      res.setEncoding('utf8').on('data', (chunk: string) => {
        pending += chunk;
        let end = pending.indexOf('\n\n');
        while (end >= 0) {
          if (pending.slice(0, end).includes('notifications/hyphae/diff')) onDiff();
          pending = pending.slice(end + 2);
          end = pending.indexOf('\n\n');
        }
      });
      res.on('error', () => undefined);
      resolve({ close: () => req.destroy() });
    });
    req.end();
  });
}

async function inBatches<T>(count: number, size: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < count; i += size) out.push(...(await Promise.all(Array.from({ length: Math.min(size, count - i) }, (_, j) => make(i + j)))));
  return out;
}

/** `count` agents' keys in the tenant; with `beacon`, the first `watchers` of them place it. */
async function mintAgents(admin: ManagedMemoryFacade, prefix: string, count: number): Promise<{ keys: string[]; principals: Principal[] }> {
  const keys = await inBatches(count, 50, async (i) => (await admin.keyAdmin.createKey({ tenant: TENANT, agent: `${prefix}-${i}` })).key);
  const principals = await inBatches(count, 200, (i) => admin.authenticate(keys[i] as string));
  return { keys, principals };
}

/**
 * Store sent → diff read on every watcher's stream, per delivery. Each round's texts are its own: a
 * text stored before would reinforce its cell, which tells no one, and the wait would never end.
 */
async function pushLatencies(port: number, writerKey: string, deliveries: { wait: Promise<void>[] }, arm: () => void, pushes: number, round: string): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  try {
    for (let i = 0; i < pushes; i++) {
      arm();
      const started = performance.now();
      const response = await postJson(agent, port, '/v1/cells', writerKey, { content: `${INTEREST}: ${round} step ${i} of the rotation checklist`, cell_type: 'Task', salience: 0.9 });
      if (response.status !== 201) throw new Error(`store answered ${response.status}: ${response.body.slice(0, 200)}`);
      const arrived = await Promise.all(deliveries.wait.map((w) => w.then(() => performance.now())));
      for (const at of arrived) latencies.push(at - started);
    }
  } finally {
    agent.destroy();
  }
  return latencies;
}

async function cpuOver(pid: number, ms: number): Promise<number> {
  const before = processCpuMs(pid);
  await sleep(ms);
  return ((processCpuMs(pid) - before) / ms) * 1000;
}

async function streamRows(url: string, admin: ManagedMemoryFacade, streams: number): Promise<BenchRow[]> {
  const serve = await startServe(url, streams + 100);
  const open: DiffStreamClient[] = [];
  try {
    const { keys, principals } = await mintAgents(admin, 'streamer', streams);
    for (const principal of principals.slice(0, WATCHERS)) await admin.placeBeacon(principal, { text: INTEREST, threshold: 0.3, include_own: false });
    const writerKey = (await admin.keyAdmin.createKey({ tenant: TENANT, agent: 'writer' })).key;
    // Warm the server's paths once, then let it settle.
    await pushLatencies(serve.port, writerKey, { wait: [] }, () => undefined, 5, 'warm-up');
    await sleep(2_000);
    const idleRss = processRssBytes(serve.pid);
    const idleCpu = await cpuOver(serve.pid, IDLE_SAMPLE_MS);

    // Each watcher's stream resolves its current promise when a diff arrives.
    const resolvers: (() => void)[] = Array.from({ length: WATCHERS }, () => (): void => undefined);
    const deliveries = { wait: [] as Promise<void>[] };
    const arm = (count: number) => (): void => {
      deliveries.wait = Array.from({ length: count }, (_, w) => new Promise<void>((resolve) => (resolvers[w] = resolve)));
    };
    open.push(await openDiffStream(serve.port, keys[0] as string, () => (resolvers[0] as () => void)()));
    const single = await pushLatencies(serve.port, writerKey, deliveries, arm(1), PUSHES, 'one-stream');

    const openStarted = performance.now();
    const rest = await inBatches(streams - 1, OPEN_CONCURRENCY, (i) => openDiffStream(serve.port, keys[i + 1] as string, () => (i + 1 < WATCHERS ? (resolvers[i + 1] as () => void)() : undefined)));
    open.push(...rest);
    const openSeconds = (performance.now() - openStarted) / 1000;
    await sleep(5_000);
    const fullRss = processRssBytes(serve.pid);
    const fullCpu = await cpuOver(serve.pid, IDLE_SAMPLE_MS);
    const many = await pushLatencies(serve.port, writerKey, deliveries, arm(WATCHERS), PUSHES, 'all-streams');
    const n = streams.toLocaleString('en-US');
    return [
      {
        metric: `memory per live stream, ${n} streams on one API process`,
        value: r3((fullRss - idleRss) / streams / 1024),
        unit: 'KiB',
        baseline: r3(idleRss / 2 ** 20),
        note: `RSS ${r3(fullRss / 2 ** 20)} MiB with the streams against ${r3(idleRss / 2 ** 20)} MiB idle (the baseline, MiB); one agent and key per stream; opened ${OPEN_CONCURRENCY} at a time in ${r3(openSeconds)} s`,
      },
      { metric: `idle CPU of the API process, ${n} streams open`, value: r3(fullCpu), unit: 'ms/s', baseline: r3(idleCpu), note: 'baseline: the same process with no stream open (feed refresh every 5 s, heartbeats every 15 s)' },
      {
        metric: `push latency p50, ${n} streams open`,
        value: r3(percentile(many, 50)),
        unit: 'ms',
        baseline: r3(percentile(single, 50)),
        ratio: r3(percentile(many, 50) / percentile(single, 50)),
        note: `a store sent over REST → its diff read off each of ${WATCHERS} watchers' streams (${many.length} deliveries); baseline: one stream open, one watcher`,
      },
      { metric: `push latency p99, ${n} streams open`, value: r3(percentile(many, 99)), unit: 'ms', baseline: r3(percentile(single, 99)), ratio: r3(percentile(many, 99) / percentile(single, 99)) },
    ];
  } finally {
    for (const stream of open) stream.close();
    await serve.close();
  }
}

interface StoreRun {
  /** From the first attempt to the 201, retries included. */
  readonly latencies: number[];
  /** Answers 503 or 429, each tried again after its Retry-After. */
  readonly refused: number;
  /** Any other answer: the store is lost. */
  readonly failed: number;
  readonly seconds: number;
  /** CPU milliseconds the API processes spent per store acknowledged. */
  readonly apiCpuPerStore: number;
  /** CPU milliseconds PostgreSQL (every backend) spent per store acknowledged. */
  readonly pgCpuPerStore: number;
}

async function storeRun(replicas: readonly ServeProcess[], postmaster: number, keys: readonly string[], perAgent: number, texts: readonly string[]): Promise<StoreRun> {
  const ports = replicas.map((r) => r.port);
  const agents = ports.map(() => new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY }));
  const run = { latencies: [] as number[], refused: 0, failed: 0 };
  let next = 0;
  const cpuBefore = replicas.reduce((sum, r) => sum + processCpuMs(r.pid), 0);
  const pgCpuBefore = processTreeCpuMs(postmaster);
  const started = performance.now();
  try {
    await Promise.all(
      keys.map(async (key, i) => {
        for (let s = 0; s < perAgent; s++) {
          const t = performance.now();
          const content = texts[next++ % texts.length] as string;
          // As a client does: a refusal (503 busy pool, 429) is tried again after its Retry-After.
          for (;;) {
            const response = await postJson(agents[i % ports.length] as Agent, ports[i % ports.length] as number, '/v1/cells', key, { content, cell_type: 'Fact' });
            if (response.status === 201) {
              run.latencies.push(performance.now() - t);
              break;
            }
            if (response.status !== 503 && response.status !== 429) {
              run.failed += 1;
              break;
            }
            run.refused += 1;
            await sleep(Number(response.headers['retry-after'] ?? 1) * 1000);
          }
        }
      }),
    );
  } finally {
    for (const agent of agents) agent.destroy();
  }
  const seconds = (performance.now() - started) / 1000;
  const apiCpu = replicas.reduce((sum, r) => sum + processCpuMs(r.pid), 0) - cpuBefore;
  const pgCpu = processTreeCpuMs(postmaster) - pgCpuBefore;
  const stored = Math.max(1, run.latencies.length);
  return { ...run, seconds, apiCpuPerStore: apiCpu / stored, pgCpuPerStore: pgCpu / stored };
}

async function agentRows(url: string, admin: ManagedMemoryFacade, postmaster: number, count: number): Promise<BenchRow[]> {
  const replicas = [await startServe(url, 1_000), await startServe(url, 1_000)];
  try {
    const { keys, principals } = await mintAgents(admin, 'agent', count);
    // One agent in ten watches a topic of the corpus, so stores write diffs as they would in a team.
    const topics = syntheticCorpus(Math.ceil(count / 10), 5);
    for (let i = 0; i < count; i += 10) await admin.placeBeacon(principals[i] as Principal, { text: topics[i / 10] as string, include_own: false });
    const texts = syntheticCorpus(BASE_STORES + count * STORES_PER_AGENT, 17);
    const first = replicas.slice(0, 1);
    await storeRun(first, postmaster, [keys[0] as string], 20, texts.slice(0, 20));
    const single = await storeRun(first, postmaster, [keys[0] as string], BASE_STORES, texts.slice(20));
    const many = await storeRun(replicas, postmaster, keys, STORES_PER_AGENT, texts.slice(BASE_STORES));
    const n = count.toLocaleString('en-US');
    const rate = (r: StoreRun): number => r.latencies.length / r.seconds;
    return [
      {
        metric: `store throughput, ${n} agents storing at once over 2 replicas`,
        value: r3(rate(many)),
        unit: 'stores/s',
        baseline: r3(rate(single)),
        ratio: r3(rate(many) / rate(single)),
        note: `${STORES_PER_AGENT} stores per agent over REST, agent i on replica i mod 2, pool 10 per replica; ${many.refused} answers 503/429 tried again after Retry-After, ${many.failed} stores failed otherwise; baseline: one client on one replica, ${BASE_STORES} stores; ${Math.ceil(count / 10)} beacons in the tenant`,
      },
      {
        metric: `store p50, ${n} agents at once`,
        value: r3(percentile(many.latencies, 50)),
        unit: 'ms',
        baseline: r3(percentile(single.latencies, 50)),
        ratio: r3(percentile(many.latencies, 50) / percentile(single.latencies, 50)),
        note: 'first attempt to 201, retries after Retry-After included',
      },
      { metric: `store p99, ${n} agents at once`, value: r3(percentile(many.latencies, 99)), unit: 'ms', baseline: r3(percentile(single.latencies, 99)), ratio: r3(percentile(many.latencies, 99) / percentile(single.latencies, 99)) },
      {
        metric: `API process CPU per store, ${n} agents at once`,
        value: r3(many.apiCpuPerStore),
        unit: 'ms',
        baseline: r3(single.apiCpuPerStore),
        ratio: r3(many.apiCpuPerStore / single.apiCpuPerStore),
        note: 'both replicas\' CPU (every thread) over the run ÷ stores acknowledged; hash embedder, so no model on it; baseline: one client',
      },
      {
        metric: `PostgreSQL CPU per store, ${n} agents at once`,
        value: r3(many.pgCpuPerStore),
        unit: 'ms',
        baseline: r3(single.pgCpuPerStore),
        ratio: r3(many.pgCpuPerStore / single.pgCpuPerStore),
        note: 'every PostgreSQL process (backends, background workers) over the run ÷ stores acknowledged; baseline: one client',
      },
    ];
  } finally {
    await Promise.all(replicas.map((r) => r.close()));
  }
}

/**
 * Each stream is a socket on both ends, in this process and in the API process (which inherits this
 * limit): the soft limit on open files must exceed the streams, with room for the database pools.
 */
function checkOpenFilesLimit(streams: number): void {
  const limit = execFileSync('/bin/sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim();
  const needed = streams + 1_000;
  if (limit !== 'unlimited' && Number(limit) < needed) {
    throw new Error(`BENCH_SCALE_STREAMS ${streams} needs ${needed} open files, and ulimit -n is ${limit}: raise it (ulimit -n ${Math.max(needed, 65_536)}) before npm run bench scale`);
  }
}

export async function scaleLiveRows(server: RealPostgres, streams: number, agents: number): Promise<BenchRow[]> {
  checkOpenFilesLimit(streams);
  const url = await createDatabase(server, 'scale_live');
  const embedder = new HashEmbedder();
  const db = await openPgDb({ url, max: 10 });
  const admin = createMemoryFacade({ db, embedder, config: { maxBeaconsPerAgent: 200 } });
  try {
    await migrate(db, { modelId: embedder.modelId, dimension: embedder.dimension });
    const postmaster = await postmasterPid(db);
    return [...(await streamRows(url, admin, streams)), ...(await agentRows(url, admin, postmaster, agents))];
  } finally {
    await admin.close();
    await db.close();
  }
}
