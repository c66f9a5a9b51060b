/**
 * `npm run bench peer`: the embedded product against the official reference memory server
 * (@modelcontextprotocol/server-memory), both spawned as stdio MCP servers and driven by the
 * official SDK client the way a host drives them — one call at a time. The same N memories are
 * stored (Hyphae `store`; the reference `create_entities` with one entity per memory) and the same
 * questions asked (Hyphae `recall` k=5; the reference `search_nodes`). Hyphae runs `hyphae mcp`
 * on a fresh embedded folder with the hash embedder (the issue's baseline setting) and again with
 * the default minilm (embedding included). Ratios are Hyphae's rate ÷ the reference's, same run.
 * The three servers run side by side and take their calls in turns (the order rotating each
 * round), so a load that drifts on a shared machine falls on all of them alike; a rate is calls ÷
 * the time spent in that server's own calls.
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
import { alternate } from './harness/alternate.js';
import { elapsedMs, round3, sequentialRate } from './harness/measure.js';
import { HYPHAE_BIN, REPO_ROOT } from './harness/processes.js';
import { percentile, type BenchRow, type BenchSection } from './harness/section.js';
import { syntheticCorpus } from './corpus.js';

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
}

/** Round i calls every peer once, starting at a different one each round; each call timed alone. */
async function inTurns(peers: readonly Peer[], n: number, call: (peer: Peer, i: number) => Promise<void>): Promise<Timed[]> {
  const sides = Object.fromEntries(peers.map((peer, k) => [String(k), (i: number) => elapsedMs(() => call(peer, i))]));
  const latencies = await alternate(sides, n);
  return peers.map((_, k) => ({ latencies: latencies[String(k)] ?? [] }));
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

async function tempFolder(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'hyphae-peer-bench-'));
}

const rate = (t: Timed): number => sequentialRate(t.latencies);

export async function runPeerBench(): Promise<BenchSection> {
  const n = Number(process.env.BENCH_PEER_MEMORIES ?? 1000);
  const memories = syntheticCorpus(n, 7);
  // A question is a word of a stored memory: the reference server matches substrings, Hyphae by meaning.
  const questions = memories.slice(0, QUESTIONS).map((m) => m.split(/\s+/).filter((w) => w.length > 5)[0] ?? m.split(/\s+/)[0] ?? m);
  const embedders = ['hash', 'minilm'] as const;
  const dirs = await Promise.all([0, 1, 2].map(() => tempFolder()));
  const peers: Peer[] = [];
  try {
    peers.push(await startReference(dirs[0]!));
    for (const [i, embedder] of embedders.entries()) peers.push(await startHyphae(dirs[i + 1]!, embedder));
    const store = await inTurns(peers, memories.length, (peer, i) => peer.store(memories[i] ?? '', i));
    const recall = await inTurns(peers, questions.length, (peer, i) => peer.recall(questions[i] ?? ''));
    const [refStore, refRecall] = [store[0]!, recall[0]!];
    const rows: BenchRow[] = [
      { metric: `reference server-memory: store (create_entities) p50, ${n} memories`, value: round3(percentile(refStore.latencies, 50)), unit: 'ms', note: `${Math.round(rate(refStore))} calls/s` },
      { metric: 'reference server-memory: recall (search_nodes) p50', value: round3(percentile(refRecall.latencies, 50)), unit: 'ms', note: `${Math.round(rate(refRecall))} calls/s` },
    ];
    const versus = (embedder: string, op: string, t: Timed, baseline: Timed): BenchRow => ({
      metric: `hyphae mcp (${embedder}) ${op} throughput vs reference`,
      value: Math.round(rate(t)),
      unit: 'calls/s',
      baseline: Math.round(rate(baseline)),
      ratio: round3(rate(t) / rate(baseline)),
      target: '≥ 1×',
      note: `p50 ${round3(percentile(t.latencies, 50))} ms, p99 ${round3(percentile(t.latencies, 99))} ms`,
    });
    for (const [i, embedder] of embedders.entries()) {
      rows.push(versus(embedder, 'store', store[i + 1]!, refStore), versus(embedder, 'recall', recall[i + 1]!, refRecall));
    }
    return { name: 'peer', rows };
  } finally {
    await Promise.allSettled(peers.map((p) => p.close()));
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  }
}
