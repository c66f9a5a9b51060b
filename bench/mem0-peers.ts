/**
 * The processes `npm run bench mem0` compares, each behind one interface: mem0 in a Python process
 * of its own (bench/mem0-driver.py), Hyphae's embedded server over REST (`hyphae serve`) and over
 * MCP stdio (`hyphae mcp`), and the `hyphae worker` all of them embed through.
 */
import { execFile, spawn } from 'node:child_process';
import { Agent } from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { MINILM_MODEL_ID } from '../src/embed/minilm-embedder.js';
import { announced, HYPHAE_BIN, REPO_ROOT, stopChild } from './harness/processes.js';
import { postJson } from './harness/loopback-post.js';

const MEM0_DRIVER = fileURLToPath(new URL('./mem0-driver.py', import.meta.url));
const MEM0_VENV_SCRIPT = fileURLToPath(new URL('../scripts/mem0-venv.sh', import.meta.url));
const run = promisify(execFile);

/** The model `hyphae worker --embedder minilm` serves by default. */
export const MINILM_MODEL = MINILM_MODEL_ID;
export const MINILM_DIMENSION = 384;

/** One call's latency and, for a search, the memories it returned (as the keys `store` answered). */
export interface PeerCall {
  readonly ms: number;
  readonly key: string;
  readonly found: readonly string[];
}

export interface MemoryPeer {
  readonly name: string;
  /** The process whose CPU is this peer's. */
  readonly pid: number;
  /** Stores `text`; `key` names the memory as this peer's search will name it. */
  store(text: string): Promise<PeerCall>;
  search(query: string, k: number): Promise<PeerCall>;
  close(): Promise<void>;
}

export interface EmbeddingWorker {
  /** The OpenAI-compatible base URL, e.g. http://127.0.0.1:PORT/v1. */
  readonly url: string;
  readonly pid: number;
  close(): Promise<void>;
}

/** `hyphae worker --embedder minilm` on a free loopback port. */
export async function startEmbeddingWorker(): Promise<EmbeddingWorker> {
  const { HYPHAE_NATS_URL: _nats, ...env } = process.env;
  const child = spawn(process.execPath, [HYPHAE_BIN, 'worker', '--embedder', 'minilm', '--port', '0', '--host', '127.0.0.1'], {
    cwd: REPO_ROOT,
    env: { ...env, HYPHAE_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const [, base] = await announced(child, /HTTP (http:\/\/127\.0\.0\.1:\d+)/, 'hyphae worker');
  return { url: `${base}/v1`, pid: child.pid as number, close: () => stopChild(child) };
}

/** The Python of the bench's mem0 venv (scripts/mem0-venv.sh makes it once, from PyPI). */
export async function mem0Python(): Promise<string> {
  const { stdout } = await run('bash', [MEM0_VENV_SCRIPT], { maxBuffer: 16 * 1024 * 1024 });
  const python = stdout.trim().split('\n').pop()?.trim();
  if (python === undefined || python === '') throw new Error('scripts/mem0-venv.sh printed no interpreter');
  return python;
}

/** mem0's Memory in a Python process of its own, its data under `dir`, calls timed inside that process. */
export async function startMem0(python: string, dir: string, worker: EmbeddingWorker): Promise<MemoryPeer> {
  const child = spawn(python, [MEM0_DRIVER], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      MEM0_TELEMETRY: 'False',
      MEM0_DIR: dir,
      HYPHAE_BENCH_EMBED_URL: worker.url,
      HYPHAE_BENCH_EMBED_MODEL: MINILM_MODEL,
      HYPHAE_BENCH_EMBED_DIMENSION: String(MINILM_DIMENSION),
      // Nothing but loopback: a proxy setting must not route the worker's calls elsewhere.
      NO_PROXY: '127.0.0.1,localhost',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  const exited = new Promise<never>((_resolve, reject) => child.once('exit', (code) => reject(new Error(`mem0 driver exited (${String(code)}): ${stderr}`))));
  exited.catch(() => undefined);
  const next = async (): Promise<Record<string, unknown>> => {
    const line = await Promise.race([lines.next(), exited]);
    if (line.done === true) throw new Error(`mem0 driver closed its output: ${stderr}`);
    return JSON.parse(line.value) as Record<string, unknown>;
  };
  const ask = async (request: Record<string, unknown>): Promise<Record<string, unknown>> => {
    child.stdin?.write(`${JSON.stringify(request)}\n`);
    const reply = await next();
    if (typeof reply.error === 'string') throw new Error(`mem0: ${reply.error}`);
    return reply;
  };
  await next();
  return {
    name: 'mem0',
    pid: child.pid as number,
    // mem0 names a memory by its text in search results; the corpus texts are unique.
    store: async (text) => ({ ms: Number((await ask({ op: 'add', text })).ms), key: text, found: [] }),
    search: async (query, k) => {
      const reply = await ask({ op: 'search', query, k });
      return { ms: Number(reply.ms), key: '', found: reply.memories as string[] };
    },
    close: async () => {
      child.stdin?.end();
      await stopChild(child);
    },
  };
}

/** The environment of an embedded Hyphae that embeds through the worker (what a user sets to share one). */
function hyphaeEnv(dir: string, worker: EmbeddingWorker): NodeJS.ProcessEnv {
  return {
    ...getDefaultEnvironment(),
    HYPHAE_DATA_DIR: dir,
    HYPHAE_EMBEDDER: 'openai',
    HYPHAE_EMBED_URL: worker.url,
    HYPHAE_EMBED_MODEL: MINILM_MODEL,
    HYPHAE_EMBED_DIMENSION: String(MINILM_DIMENSION),
    HYPHAE_LOG_LEVEL: 'warn',
    HYPHAE_GRPC_PORT: '0',
    HYPHAE_RATE_LIMIT_PER_MINUTE: '100000000',
  };
}

async function createKey(env: NodeJS.ProcessEnv): Promise<string> {
  const { stdout } = await run(process.execPath, [HYPHAE_BIN, 'keys', 'create', '--tenant', 'bench', '--agent', 'bench'], { cwd: REPO_ROOT, env });
  return stdout.trim().split('\n').pop()?.trim() ?? '';
}

/** `hyphae serve` on an embedded folder, called over REST on a keep-alive loopback connection. */
export async function startHyphaeRest(dir: string, worker: EmbeddingWorker): Promise<MemoryPeer> {
  const env = hyphaeEnv(dir, worker);
  const key = await createKey(env);
  const child = spawn(process.execPath, [HYPHAE_BIN, 'serve', '--host', '127.0.0.1', '--port', '0'], { cwd: REPO_ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  const [, port] = await announced(child, /serving on http:\/\/127\.0\.0\.1:(\d+)/, 'hyphae serve');
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const post = async (path: string, body: unknown, status: number): Promise<{ ms: number; body: Record<string, unknown> }> => {
    const started = performance.now();
    const response = await postJson(agent, Number(port), path, key, body);
    const ms = performance.now() - started;
    if (response.status !== status) throw new Error(`REST ${path} answered ${response.status}: ${response.body.slice(0, 300)}`);
    return { ms, body: JSON.parse(response.body) as Record<string, unknown> };
  };
  return {
    name: 'Hyphae REST',
    pid: child.pid as number,
    store: async (text) => {
      const { ms, body } = await post('/v1/cells', { content: text, cell_type: 'Fact' }, 201);
      return { ms, key: String(body.node_id), found: [] };
    },
    search: async (query, k) => {
      const { ms, body } = await post('/v1/recall', { query, k }, 200);
      return { ms, key: '', found: (body.results as { node: { node_id: string } }[]).map((r) => r.node.node_id) };
    },
    close: async () => {
      agent.destroy();
      await stopChild(child);
    },
  };
}

/** `hyphae mcp` on an embedded folder, driven by the official MCP client over stdio. */
export async function startHyphaeMcp(dir: string, worker: EmbeddingWorker): Promise<MemoryPeer> {
  const env = hyphaeEnv(dir, worker);
  const key = await createKey(env);
  const transport = new StdioClientTransport({ command: process.execPath, args: [HYPHAE_BIN, 'mcp'], cwd: REPO_ROOT, env: { ...env, HYPHAE_API_KEY: key } as Record<string, string>, stderr: 'pipe' });
  const client = new Client({ name: 'hyphae-bench', version: '1.0.0' });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown>): Promise<{ ms: number; structured: Record<string, unknown> }> => {
    const started = performance.now();
    const result = await client.callTool({ name, arguments: args });
    const ms = performance.now() - started;
    if (result.isError === true) throw new Error(`MCP ${name} failed: ${JSON.stringify(result.content).slice(0, 300)}`);
    return { ms, structured: result.structuredContent as Record<string, unknown> };
  };
  return {
    name: 'Hyphae MCP',
    pid: transport.pid as number,
    store: async (text) => {
      const { ms, structured } = await call('store', { content: text, cell_type: 'Fact' });
      return { ms, key: String(structured.node_id), found: [] };
    },
    search: async (query, k) => {
      const { ms, structured } = await call('recall', { query, k });
      return { ms, key: '', found: (structured.results as { node_id: string }[]).map((r) => r.node_id) };
    },
    close: () => client.close(),
  };
}
