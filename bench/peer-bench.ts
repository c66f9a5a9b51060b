/**
 * `npm run bench peer`: the embedded product against the official reference memory server
 * (@modelcontextprotocol/server-memory), both spawned as stdio MCP servers and driven by the
 * official SDK client the way a host drives them — one call at a time. The same N memories are
 * stored (Hyphae `store`; the reference `create_entities` with one entity per memory) and the same
 * questions asked (Hyphae `recall` k=5; the reference `search_nodes`). Hyphae runs `hyphae mcp`
 * on a fresh embedded folder with the hash embedder (the issue's baseline setting) and again with
 * the default minilm (embedding included). Ratios are Hyphae's rate ÷ the reference's, same run.
 * BENCH_PEER_MEMORIES (default 1000) sets N; the questions are the first 200 memories' words.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { percentile, type BenchRow, type BenchSection } from './bench-section.js';
import { syntheticCorpus } from './corpus.js';

const HYPHAE_BIN = fileURLToPath(new URL('../bin/hyphae.js', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));
const REFERENCE_BIN = fileURLToPath(new URL('../node_modules/@modelcontextprotocol/server-memory/dist/index.js', import.meta.url));
const QUESTIONS = 200;

interface Peer {
  readonly client: Client;
  store(text: string, i: number): Promise<void>;
  recall(question: string): Promise<void>;
  close(): Promise<void>;
}

interface Timed {
  readonly latencies: number[];
  readonly seconds: number;
}

async function timedCalls(n: number, call: (i: number) => Promise<void>): Promise<Timed> {
  const latencies: number[] = [];
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await call(i);
    latencies.push(performance.now() - t);
  }
  return { latencies, seconds: (performance.now() - started) / 1000 };
}

async function connect(transport: StdioClientTransport): Promise<Client> {
  const client = new Client({ name: 'hyphae-bench', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** Fails the section on a tool error: a rate of failing calls means nothing. */
function ensureOk(result: Awaited<ReturnType<Client['callTool']>>, what: string): void {
  if (result.isError === true) throw new Error(`${what} failed: ${JSON.stringify(result.content).slice(0, 300)}`);
}

async function startReference(dir: string): Promise<Peer> {
  const client = await connect(
    new StdioClientTransport({ command: process.execPath, args: [REFERENCE_BIN], env: { ...getDefaultEnvironment(), MEMORY_FILE_PATH: join(dir, 'memory.jsonl') }, stderr: 'pipe' }),
  );
  return {
    client,
    store: async (text, i) =>
      ensureOk(await client.callTool({ name: 'create_entities', arguments: { entities: [{ name: `memory-${i}`, entityType: 'memory', observations: [text] }] } }), 'create_entities'),
    recall: async (question) => ensureOk(await client.callTool({ name: 'search_nodes', arguments: { query: question } }), 'search_nodes'),
    close: () => client.close(),
  };
}

async function startHyphae(dir: string, embedder: string): Promise<Peer> {
  const env = { ...getDefaultEnvironment(), HYPHAE_DATA_DIR: dir, HYPHAE_EMBEDDER: embedder, HYPHAE_LOG_LEVEL: 'warn' };
  const { stdout } = await promisify(execFile)(process.execPath, [HYPHAE_BIN, 'keys', 'create', '--tenant', 'bench', '--agent', 'bench'], { cwd: REPO_ROOT, env });
  const key = stdout.trim().split('\n').pop()?.trim() ?? '';
  const client = await connect(new StdioClientTransport({ command: process.execPath, args: [HYPHAE_BIN, 'mcp'], cwd: REPO_ROOT, env: { ...env, HYPHAE_API_KEY: key }, stderr: 'pipe' }));
  return {
    client,
    store: async (text) => ensureOk(await client.callTool({ name: 'store', arguments: { content: text, cell_type: 'Fact' } }), 'store'),
    recall: async (question) => ensureOk(await client.callTool({ name: 'recall', arguments: { query: question, k: 5 } }), 'recall'),
    close: () => client.close(),
  };
}

interface Run {
  readonly store: Timed;
  readonly recall: Timed;
}

async function drive(peer: Peer, memories: readonly string[], questions: readonly string[]): Promise<Run> {
  try {
    const store = await timedCalls(memories.length, (i) => peer.store(memories[i] ?? '', i));
    const recall = await timedCalls(questions.length, (i) => peer.recall(questions[i] ?? ''));
    return { store, recall };
  } finally {
    await peer.close();
  }
}

async function inFolder<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'hyphae-peer-bench-'));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;
const rate = (t: Timed): number => t.latencies.length / t.seconds;

export async function runPeerBench(): Promise<BenchSection> {
  const n = Number(process.env.BENCH_PEER_MEMORIES ?? 1000);
  const memories = syntheticCorpus(n, 7);
  // A question is a word of a stored memory: the reference server matches substrings, Hyphae by meaning.
  const questions = memories.slice(0, QUESTIONS).map((m) => m.split(/\s+/).filter((w) => w.length > 5)[0] ?? m.split(/\s+/)[0] ?? m);
  const reference = await inFolder((dir) => startReference(dir).then((peer) => drive(peer, memories, questions)));
  const rows: BenchRow[] = [
    { metric: `reference server-memory: store (create_entities) p50, ${n} memories`, value: round3(percentile(reference.store.latencies, 50)), unit: 'ms', note: `${Math.round(rate(reference.store))} calls/s` },
    { metric: 'reference server-memory: recall (search_nodes) p50', value: round3(percentile(reference.recall.latencies, 50)), unit: 'ms', note: `${Math.round(rate(reference.recall))} calls/s` },
  ];
  for (const embedder of ['hash', 'minilm']) {
    const hyphae = await inFolder((dir) => startHyphae(dir, embedder).then((peer) => drive(peer, memories, questions)));
    rows.push(
      {
        metric: `hyphae mcp (${embedder}) store throughput vs reference`,
        value: Math.round(rate(hyphae.store)),
        unit: 'calls/s',
        baseline: Math.round(rate(reference.store)),
        ratio: round3(rate(hyphae.store) / rate(reference.store)),
        target: '≥ 1×',
        note: `p50 ${round3(percentile(hyphae.store.latencies, 50))} ms, p99 ${round3(percentile(hyphae.store.latencies, 99))} ms`,
      },
      {
        metric: `hyphae mcp (${embedder}) recall throughput vs reference`,
        value: Math.round(rate(hyphae.recall)),
        unit: 'calls/s',
        baseline: Math.round(rate(reference.recall)),
        ratio: round3(rate(hyphae.recall) / rate(reference.recall)),
        target: '≥ 1×',
        note: `p50 ${round3(percentile(hyphae.recall.latencies, 50))} ms, p99 ${round3(percentile(hyphae.recall.latencies, 99))} ms`,
      },
    );
  }
  return { name: 'peer', rows };
}
