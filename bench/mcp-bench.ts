/**
 * MCP throughput and latency of `tools/call list_beacons` (a cheap read: authenticate the key,
 * one indexed query) over HTTP with concurrent keep-alive clients, side by side in one run with
 * the official SDK's own Streamable HTTP server doing the same facade calls; and over stdio
 * against the facade called directly. Target: ≥ 5× the SDK server's throughput at equal or lower p99.
 * Server CPU per call is reported beside throughput: it does not depend on how busy the machine is.
 * A second pair of servers over an in-memory facade isolates the protocol cost from the database;
 * the facade called alone at the same concurrency is the ceiling no protocol layer can pass.
 *
 * The database is a throwaway native PostgreSQL 18 + pgvector (test/support/real-postgres.ts, as
 * the pg bench starts it; a missing one fails the section); BENCH_MCP_DB=pglite runs it on
 * embedded PGlite instead.
 */
import { PassThrough } from 'node:stream';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { createEmbedder } from '../src/embed/create-embedder.js';
import { buildSurfacesApp } from '../src/cli/serve-app.js';
import { resolveHttpConfig } from '../src/http/http-config.js';
import { createHyphaeMetrics } from '../src/metrics/index.js';
import { registerMcpRoutes } from '../src/mcp/transports/http-routes.js';
import { runStdioServer } from '../src/mcp/transports/stdio-server.js';
import { projectBeacon } from '../src/mcp/features/tools/output-shapes.js';
import { createMemoryFacade } from '../src/service/index.js';
import type { MemoryFacade } from '../src/service/memory-facade.js';
import type { Principal } from '../src/core/principal.js';
import type { Db } from '../src/store/db.js';
import { migrate } from '../src/store/migrator.js';
import { alternate } from './harness/alternate.js';
import { openBenchDb } from './harness/database.js';
import { round3 } from './harness/measure.js';
import { ratioRow } from './harness/rows.js';
import { percentile } from './harness/section.js';
import type { BenchRow, BenchSection } from './harness/section.js';
import { runLoad } from './harness/http-load.js';
import type { LoadResult } from './harness/http-load.js';
import { startSdkBaselineServer } from './mcp-sdk-baseline.js';
import { DOUBLE_KEY, createProtocolFacadeDouble } from '../test/support/mcp/protocol-facade-double.js';

const CONCURRENCY = 16;
const ROUNDS = 4;
const ROUND_MS = 3_000;
const WARMUP_MS = 1_500;
const SERIAL_MS = 3_000;
const STDIO_MS = 3_000;
const PROTOCOL_MS = 3_000;
const STDIO_WINDOW = 16;
const BEACONS = 5;

const CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_beacons', arguments: { limit: 10 } } });

interface Measured {
  readonly completed: number;
  readonly serverCpuMs: number;
  readonly clientCpuMs: number;
  readonly errors: number;
  readonly elapsedMs: number;
  readonly latencies: number[];
  readonly firstError?: string;
}

function merge(results: readonly LoadResult[]): Measured {
  const latencies: number[] = [];
  for (const result of results) for (const value of result.latencies) latencies.push(value);
  const firstError = results.find((result) => result.firstError !== undefined)?.firstError;
  return {
    completed: results.reduce((sum, result) => sum + result.completed, 0),
    serverCpuMs: results.reduce((sum, result) => sum + result.serverCpuMs, 0),
    clientCpuMs: results.reduce((sum, result) => sum + result.clientCpuMs, 0),
    errors: results.reduce((sum, result) => sum + result.errors, 0),
    elapsedMs: results.reduce((sum, result) => sum + result.elapsedMs, 0),
    latencies,
    ...(firstError === undefined ? {} : { firstError }),
  };
}

/** Server-side CPU microseconds per call: what bounds throughput on an uncontended core. */
function cpuPerCall(measured: Measured): number {
  return (measured.serverCpuMs * 1000) / measured.completed;
}

/** The load generator's CPU microseconds per call: HTTP client work that competes with the servers for the same cores. */
function clientCpuPerCall(measured: Measured): number {
  return (measured.clientCpuMs * 1000) / measured.completed;
}

function rate(measured: Measured): number {
  return measured.completed / (measured.elapsedMs / 1000);
}

function checkClean(name: string, measured: Measured): void {
  if (measured.errors > 0) throw new Error(`${name}: ${measured.errors} failed requests, first: ${measured.firstError ?? '?'}`);
}

async function listen(app: FastifyInstance): Promise<number> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return (app.server.address() as AddressInfo).port;
}

interface StatementCounts {
  statements: number;
  transactions: number;
}

/** The database as the facade sees it, counting what it sends: one query() is one round trip, a transaction adds BEGIN and COMMIT. */
function countingDb(db: Db, counts: StatementCounts): Db {
  return {
    driver: db.driver,
    knn: db.knn,
    query: (sql, params) => {
      counts.statements += 1;
      return db.query(sql, params);
    },
    transaction: (fn, options) => {
      counts.transactions += 1;
      return db.transaction((tx) => fn({
        query: (sql, params) => {
          counts.statements += 1;
          return tx.query(sql, params);
        },
      }), options);
    },
    poolStats: () => db.poolStats(),
    close: () => db.close(),
  };
}

/** The facade part of one call (authenticate, listBeacons, projection), in this process at the server's concurrency. */
async function measureFacadeAlone(facade: MemoryFacade, key: string, durationMs: number): Promise<LoadResult> {
  const latencies: number[] = [];
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const deadline = started + durationMs;
  const loop = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      const page = await facade.listBeacons(await facade.authenticate(key), { limit: 10 });
      JSON.stringify({ beacons: page.items.map(projectBeacon), next_cursor: page.next_cursor });
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  const cpu = process.cpuUsage(cpuBefore);
  return { completed: latencies.length, serverCpuMs: (cpu.user + cpu.system) / 1000, clientCpuMs: 0, errors: 0, elapsedMs: performance.now() - started, latencies };
}

/** Sequential and pipelined tools/call over in-memory stdio streams. */
async function measureStdio(facade: MemoryFacade, principal: Principal, window: number): Promise<Measured> {
  const input = new PassThrough();
  const output = new PassThrough();
  const served = runStdioServer({ facade, principal, input, output });
  const sentAt = new Map<number, number>();
  const latencies: number[] = [];
  let nextId = 1;
  let buffered = '';
  let errors = 0;
  const deadline = performance.now() + STDIO_MS;
  const started = performance.now();
  await new Promise<void>((resolve) => {
    const send = (): void => {
      const id = nextId++;
      sentAt.set(id, performance.now());
      input.write(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"list_beacons","arguments":{"limit":10}}}\n`);
    };
    output.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      let newline = buffered.indexOf('\n');
      while (newline !== -1) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        const id = Number(/^\{"jsonrpc":"2.0","id":(\d+)/.exec(line)?.[1]);
        if (!line.includes('"isError":false')) errors += 1;
        latencies.push(performance.now() - (sentAt.get(id) ?? 0));
        sentAt.delete(id);
        if (performance.now() < deadline) send();
        else if (sentAt.size === 0) resolve();
        newline = buffered.indexOf('\n');
      }
    });
    for (let i = 0; i < window; i += 1) send();
  });
  const elapsedMs = performance.now() - started;
  input.end();
  await served;
  return { completed: latencies.length, serverCpuMs: 0, clientCpuMs: 0, errors, elapsedMs, latencies };
}

async function measureDirect(facade: MemoryFacade, principal: Principal): Promise<Measured> {
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + STDIO_MS;
  while (performance.now() < deadline) {
    const t0 = performance.now();
    const page = await facade.listBeacons(principal, { limit: 10 });
    JSON.stringify({ beacons: page.items.map(projectBeacon), next_cursor: page.next_cursor });
    latencies.push(performance.now() - t0);
  }
  return { completed: latencies.length, serverCpuMs: 0, clientCpuMs: 0, errors: 0, elapsedMs: performance.now() - started, latencies };
}

const RESOURCE_MS = 3_000;
const RESOURCE_CELLS = 200;

/**
 * What reading memories through MCP costs, on the full app: recall with its resource_links (ids in
 * structuredContent, nodes hydrated for the links) against REST's recall of full nodes, the same
 * kNN and hydration; and resources/read of one cell against tools/call list_beacons, both one
 * authenticated indexed read.
 */
async function measureResourceReads(
  facade: MemoryFacade,
  principal: Principal,
  port: number,
  headers: Readonly<Record<string, string>>,
): Promise<BenchRow[]> {
  let nodeId = '';
  for (let i = 0; i < RESOURCE_CELLS; i += 1) {
    nodeId = (await facade.store(principal, { content: `bench memory ${i}: the deploy of service ${i % 17} needs review`, cell_type: 'Fact', salience: 0.5 })).node_id;
  }
  const recallArgs = { query: 'which deploys need review', k: 10 };
  const pairs: [string, { path: string; body: string; expect: string }, { path: string; body: string; expect: string }][] = [
    [
      'MCP recall with resource_links vs REST recall (full nodes)',
      { path: '/mcp', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'recall', arguments: recallArgs } }), expect: '"resource_link"' },
      { path: '/v1/recall', body: JSON.stringify(recallArgs), expect: '"results"' },
    ],
    [
      'MCP resources/read of a cell vs tools/call list_beacons',
      { path: '/mcp', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: `hyphae://cells/${nodeId}` } }), expect: '"contents"' },
      { path: '/mcp', body: CALL, expect: '"structuredContent"' },
    ],
  ];
  const rows: BenchRow[] = [];
  for (const [metric, subject, baseline] of pairs) {
    const run = (target: { path: string; body: string; expect: string }): Promise<LoadResult> =>
      runLoad({ port, headers, ...target, concurrency: CONCURRENCY, durationMs: RESOURCE_MS });
    // Alternating order, one warm-up of each first.
    const runs = await alternate({ ours: () => run(subject), base: () => run(baseline) }, ROUNDS, { warmup: 1 });
    const ours = merge(runs.ours);
    const base = merge(runs.base);
    checkClean(metric, ours);
    checkClean(`${metric} (baseline)`, base);
    rows.push({
      metric,
      value: Math.round(rate(ours)),
      unit: 'calls/s',
      baseline: Math.round(rate(base)),
      ratio: round3(rate(ours) / rate(base)),
      note: `c=${CONCURRENCY}; p99 ${round3(percentile(ours.latencies, 99))} ms vs ${round3(percentile(base.latencies, 99))} ms`,
    });
  }
  return rows;
}

export async function runMcpBench(): Promise<BenchSection> {
  const embedder = await createEmbedder({ kind: 'hash' });
  const database = await openBenchDb(process.env.BENCH_MCP_DB ?? 'native', 'BENCH_MCP_DB');
  await migrate(database.db, { dimension: embedder.dimension, modelId: embedder.modelId });
  const counts: StatementCounts = { statements: 0, transactions: 0 };
  const facade = createMemoryFacade({ db: countingDb(database.db, counts), embedder });
  const unpreparedFacade = database.unprepared === undefined ? undefined : createMemoryFacade({ db: database.unprepared, embedder });
  const key = (await facade.keyAdmin.createKey({ tenant: 'bench', agent: 'bench-agent' })).key;
  const principal = await facade.authenticate(key);
  for (let i = 0; i < BEACONS; i += 1) await facade.placeBeacon(principal, { text: `standing interest number ${i}`, include_own: false });

  const ours = Fastify({ logger: false, bodyLimit: 256 * 1024 });
  registerMcpRoutes(ours, { facade });
  const oursPort = await listen(ours);
  const { app: fullApp } = await buildSurfacesApp({
    facade,
    config: resolveHttpConfig({ rateLimitPerMinute: 1_000_000_000 }),
    readiness: [],
    metrics: createHyphaeMetrics(),
    logger: false,
    version: 'bench',
  });
  const fullHasMcp = fullApp.hasRoute({ method: 'POST', url: '/mcp' });
  const fullPort = fullHasMcp ? await listen(fullApp) : undefined;
  const sdk = await startSdkBaselineServer(facade);
  // Protocol cost alone: both servers again, over a facade that answers from memory.
  const memoryFacade = createProtocolFacadeDouble();
  const oursMemory = Fastify({ logger: false, bodyLimit: 256 * 1024 });
  registerMcpRoutes(oursMemory, { facade: memoryFacade });
  const oursMemoryPort = await listen(oursMemory);
  const sdkMemory = await startSdkBaselineServer(memoryFacade);

  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'x-hyphae-key': key,
    'mcp-protocol-version': '2025-11-25',
  };
  const load = (port: number, concurrency: number, durationMs: number): Promise<LoadResult> =>
    runLoad({ port, path: '/mcp', headers, body: CALL, expect: '"structuredContent"', concurrency, durationMs });

  try {
    const targets: Record<string, (durationMs: number) => Promise<LoadResult>> = {
      hyphae: (durationMs) => load(oursPort, CONCURRENCY, durationMs),
      sdk: (durationMs) => load(sdk.port, CONCURRENCY, durationMs),
      'facade-alone': (durationMs) => measureFacadeAlone(facade, key, durationMs),
    };
    if (fullPort !== undefined) targets['hyphae-full-app'] = (durationMs) => load(fullPort, CONCURRENCY, durationMs);
    if (unpreparedFacade !== undefined) targets['facade-alone-unprepared'] = (durationMs) => measureFacadeAlone(unpreparedFacade, key, durationMs);
    // The order rotates each round so warm-up, table state and the machine's load weigh on each alike.
    const rounds = await alternate(
      Object.fromEntries(Object.entries(targets).map(([name, run]) => [name, (round: number) => run(round < 0 ? WARMUP_MS : ROUND_MS)])),
      ROUNDS,
      { warmup: 1 },
    );
    const concurrent = new Map(Object.entries(rounds).map(([name, results]) => [name, merge(results)]));
    const memoryHeaders = { ...headers, 'x-hyphae-key': DOUBLE_KEY };
    const memoryLoad = (port: number): Promise<LoadResult> =>
      runLoad({ port, path: '/mcp', headers: memoryHeaders, body: CALL, expect: '"structuredContent"', concurrency: CONCURRENCY, durationMs: PROTOCOL_MS });
    const protocol = await alternate({ ours: () => memoryLoad(oursMemoryPort), sdk: () => memoryLoad(sdkMemory.port) }, 2, { warmup: 1 });
    const protocolOurs = merge(protocol.ours);
    const protocolSdk = merge(protocol.sdk);
    checkClean('protocol-only hyphae', protocolOurs);
    checkClean('protocol-only sdk', protocolSdk);
    // Sequential calls, counting the statements the facade sent meanwhile (the principal cache refreshes every 5 s).
    const counted = async (port: number): Promise<{ measured: Measured; statementsPerCall: number; transactionsPerCall: number }> => {
      const before = { ...counts };
      const measured = merge([await load(port, 1, SERIAL_MS)]);
      const calls = measured.completed + measured.errors;
      return { measured, statementsPerCall: (counts.statements - before.statements) / calls, transactionsPerCall: (counts.transactions - before.transactions) / calls };
    };
    const serialOursCounted = await counted(oursPort);
    const serialSdkCounted = await counted(sdk.port);
    const serialOurs = serialOursCounted.measured;
    const serialSdk = serialSdkCounted.measured;
    for (const [name, measured] of [...concurrent, ['serial hyphae', serialOurs], ['serial sdk', serialSdk]] as const) checkClean(name, measured);

    const stdioSerial = await measureStdio(facade, principal, 1);
    const stdioPipelined = await measureStdio(facade, principal, STDIO_WINDOW);
    const direct = await measureDirect(facade, principal);
    checkClean('stdio', stdioSerial);
    checkClean('stdio pipelined', stdioPipelined);

    const oursC = concurrent.get('hyphae');
    const sdkC = concurrent.get('sdk');
    const facadeAlone = concurrent.get('facade-alone');
    const unpreparedC = concurrent.get('facade-alone-unprepared');
    if (oursC === undefined || sdkC === undefined || facadeAlone === undefined) throw new Error('missing measurements');
    const note = `tools/call list_beacons on ${database.label}, ${CONCURRENCY} keep-alive clients, ${ROUNDS}×${ROUND_MS / 1000}s, order rotating`;
    const rows: BenchRow[] = [
      { metric: 'HTTP throughput vs SDK server', value: Math.round(rate(oursC)), unit: 'calls/s', baseline: Math.round(rate(sdkC)), ratio: round3(rate(oursC) / rate(sdkC)), target: '≥ 5', note },
      { metric: 'HTTP server CPU per call vs SDK server', value: Math.round(cpuPerCall(oursC)), unit: 'µs', baseline: Math.round(cpuPerCall(sdkC)), ratio: round3(cpuPerCall(sdkC) / cpuPerCall(oursC)), note: `ratio = SDK / hyphae; this process only (the facade and its driver, shared by both${database.db.driver === 'pg' ? '; not the PostgreSQL backends' : ''}); the load generator spent ${Math.round(clientCpuPerCall(oursC))} vs ${Math.round(clientCpuPerCall(sdkC))} µs per call` },
      {
        metric: `facade call alone (c=${CONCURRENCY}, in process) vs SDK server`,
        value: Math.round(rate(facadeAlone)),
        unit: 'calls/s',
        baseline: Math.round(rate(sdkC)),
        ratio: round3(rate(facadeAlone) / rate(sdkC)),
        note: `authenticate + listBeacons + projection, no protocol: the ceiling of the first row's ratio; hyphae's rate is ${round3(rate(oursC) / rate(facadeAlone))} of it; p99 ${round3(percentile(facadeAlone.latencies, 99))} ms; ${Math.round(cpuPerCall(facadeAlone))} µs CPU per call`,
      },
      ...(unpreparedC === undefined
        ? []
        : [{
            metric: `facade call alone (c=${CONCURRENCY}): prepared vs unnamed statements`,
            value: Math.round(rate(facadeAlone)),
            unit: 'calls/s',
            baseline: Math.round(rate(unpreparedC)),
            ratio: round3(rate(facadeAlone) / rate(unpreparedC)),
            note: `the same facade over a pool with preparedStatements 0; CPU per call in this process ${Math.round(cpuPerCall(facadeAlone))} vs ${Math.round(cpuPerCall(unpreparedC))} µs`,
          }]),
      {
        metric: 'SQL round trips per tools/call (hyphae, SDK server)',
        value: round3(serialOursCounted.statementsPerCall + 2 * serialOursCounted.transactionsPerCall),
        unit: 'round trips',
        baseline: round3(serialSdkCounted.statementsPerCall + 2 * serialSdkCounted.transactionsPerCall),
        note: `c=1; ${round3(serialOursCounted.statementsPerCall)} statements and ${round3(serialOursCounted.transactionsPerCall)} transactions per call (BEGIN and COMMIT counted as round trips)`,
      },
      ratioRow(`HTTP p50 (c=${CONCURRENCY}) vs SDK server`, 'ms', percentile(oursC.latencies, 50), percentile(sdkC.latencies, 50)),
      ratioRow(`HTTP p99 (c=${CONCURRENCY}) vs SDK server`, 'ms', percentile(oursC.latencies, 99), percentile(sdkC.latencies, 99), { target: '≤ 1' }),
      { metric: 'protocol only: HTTP throughput vs SDK server', value: Math.round(rate(protocolOurs)), unit: 'calls/s', baseline: Math.round(rate(protocolSdk)), ratio: round3(rate(protocolOurs) / rate(protocolSdk)), target: '≥ 5', note: 'in-memory facade answering list_beacons: protocol cost without the database' },
      { metric: 'protocol only: server CPU per call vs SDK server', value: Math.round(cpuPerCall(protocolOurs)), unit: 'µs', baseline: Math.round(cpuPerCall(protocolSdk)), ratio: round3(cpuPerCall(protocolSdk) / cpuPerCall(protocolOurs)), note: `ratio = SDK / hyphae; the load generator spent ${Math.round(clientCpuPerCall(protocolOurs))} vs ${Math.round(clientCpuPerCall(protocolSdk))} µs per call` },
      ratioRow('protocol only: HTTP p99 vs SDK server', 'ms', percentile(protocolOurs.latencies, 99), percentile(protocolSdk.latencies, 99), { target: '≤ 1' }),
      ratioRow('HTTP p50 (c=1) vs SDK server', 'ms', percentile(serialOurs.latencies, 50), percentile(serialSdk.latencies, 50)),
      ratioRow('HTTP p99 (c=1) vs SDK server', 'ms', percentile(serialOurs.latencies, 99), percentile(serialSdk.latencies, 99), { target: '≤ 1' }),
    ];
    const full = concurrent.get('hyphae-full-app');
    if (full !== undefined) {
      rows.push({
        metric: 'HTTP throughput, full app (security hooks, rate limit, metrics) vs SDK server',
        value: Math.round(rate(full)),
        unit: 'calls/s',
        baseline: Math.round(rate(sdkC)),
        ratio: round3(rate(full) / rate(sdkC)),
        note: `p99 ${round3(percentile(full.latencies, 99))} ms`,
      });
    }
    rows.push(
      { metric: 'stdio throughput (sequential) vs facade direct', value: Math.round(rate(stdioSerial)), unit: 'calls/s', baseline: Math.round(rate(direct)), ratio: round3(rate(stdioSerial) / rate(direct)), note: 'in-memory streams; baseline: listBeacons + projection, sequential' },
      { metric: 'stdio p50 / p99 (sequential)', value: round3(percentile(stdioSerial.latencies, 50)), unit: 'ms', note: `p99 ${round3(percentile(stdioSerial.latencies, 99))} ms` },
      { metric: `stdio throughput (${STDIO_WINDOW} in flight) vs facade direct`, value: Math.round(rate(stdioPipelined)), unit: 'calls/s', baseline: Math.round(rate(direct)), ratio: round3(rate(stdioPipelined) / rate(direct)) },
    );
    if (fullPort !== undefined) rows.push(...(await measureResourceReads(facade, principal, fullPort, headers)));
    return { name: 'mcp', rows };
  } finally {
    await sdk.close();
    await sdkMemory.close();
    await ours.close();
    await oursMemory.close();
    await fullApp.close();
    await facade.close();
    await unpreparedFacade?.close();
    await embedder.close();
    await database.close();
  }
}
