// Helpers of the e2e tier, which runs inside the local cluster's network namespace
// (`scripts/local-cluster.sh exec`): kubectl and helm come from PATH, the cluster from KUBECONFIG,
// the images from the KEY=VALUE lines `up` printed.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { execFile } from 'node:child_process';
import { request } from 'node:http';
import { Readable } from 'node:stream';
import { DIFF_NOTIFICATION_METHOD } from '../../../src/mcp/protocol/diff-extension.js';

export interface ClusterEnv {
  kubeconfig: string;
  hyphaeImage: string;
  postgresImage: string;
  natsImage: string;
}

/** The cluster this process runs in, or why it cannot run (thrown under HYPHAE_TEST_REQUIRE=all). */
export function clusterEnv(): { env?: ClusterEnv; skip?: string } {
  const { KUBECONFIG, HYPHAE_IMAGE, POSTGRES_IMAGE, NATS_IMAGE, HYPHAE_LOCAL_CLUSTER } = process.env;
  if (HYPHAE_LOCAL_CLUSTER && KUBECONFIG && HYPHAE_IMAGE && POSTGRES_IMAGE && NATS_IMAGE) {
    return { env: { kubeconfig: KUBECONFIG, hyphaeImage: HYPHAE_IMAGE, postgresImage: POSTGRES_IMAGE, natsImage: NATS_IMAGE } };
  }
  const reason = 'e2e tests skipped: not inside a local cluster (run `npm run test:e2e`, which starts scripts/local-cluster.sh)';
  if (process.env.HYPHAE_TEST_REQUIRE === 'all') throw new Error(reason.replace('skipped', 'required'));
  console.warn(reason);
  return { skip: reason };
}

/** The parts of a Pod and a HyphaeMesh the e2e checks read. */
export interface ClusterPod {
  metadata: { name: string; uid?: string; labels?: Record<string, string> };
  status: { phase?: string; podIP?: string; conditions?: { type: string; status: string }[]; containerStatuses?: { restartCount: number }[] };
}
export interface ClusterMesh {
  metadata: { generation: number };
  spec: { auth?: { bootstrapAdminKeySecret?: { name: string; key: string } } };
  status?: { conditions?: { type: string; status: string; observedGeneration?: number }[] };
}

export const podReady = (p: ClusterPod): boolean => p.status.phase === 'Running' && (p.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function run(cmd: string, args: readonly string[]): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(cmd, [...args], { maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

export async function ok(cmd: string, args: readonly string[]): Promise<string> {
  const r = await run(cmd, args);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.code}):\n${r.stderr}${r.stdout}`);
  return r.stdout;
}

export const kubectl = (...args: string[]): Promise<string> => ok('kubectl', args);

export async function kubectlJson<T>(...args: string[]): Promise<T> {
  return JSON.parse(await kubectl(...args, '-o', 'json')) as T;
}

/** The HyphaeMesh's Ready condition, True at its current generation. */
export async function meshReady(namespace: string, name: string): Promise<true | undefined> {
  const mesh = await kubectlJson<ClusterMesh>('-n', namespace, 'get', 'hyphaemesh', name);
  const c = mesh.status?.conditions?.find((x) => x.type === 'Ready');
  return c?.status === 'True' && c.observedGeneration === mesh.metadata.generation ? true : undefined;
}

/** The pace of waits on a real cluster (`waitFor`'s deadline and poll): pods take minutes, and kubectl costs a process. */
export const CLUSTER_DEADLINE_MS = 300_000;
export const CLUSTER_POLL_MS = 1000;

/**
 * A fetch for the MCP SDK and REST calls that connects to `address` (a Service or pod IP) while
 * sending `Host: host` (a name the API's Host allowlist admits): the global fetch cannot set Host.
 */
export function fetchVia(address: string, host: string): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((v, k) => {
      headers[k] = v;
    });
    headers.host = `${host}:${url.port}`;
    const body = init?.body === undefined || init.body === null ? undefined : String(init.body);
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    return new Promise<Response>((resolve, reject) => {
      const req = request(
        { host: address, port: url.port, path: `${url.pathname}${url.search}`, method: init?.method ?? 'GET', headers, signal: init?.signal ?? undefined },
        (res) => {
          const out = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out.set(k, Array.isArray(v) ? v.join(', ') : v);
          const status = res.statusCode ?? 500;
          const stream = status === 204 || status === 202 ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
          if (stream === null) res.resume();
          resolve(new Response(stream, { status, headers: out }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }) as typeof fetch;
}

/** A JSON-RPC tools/call over POST /mcp; returns structuredContent or throws with the error. */
export async function callTool(f: typeof fetch, key: string, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await f('http://api:8787/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', 'x-hyphae-key': key },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  const text = await response.text();
  const body = JSON.parse(text) as { result?: { structuredContent?: Record<string, unknown> }; error?: unknown };
  if (!body.result?.structuredContent) throw new Error(`tool ${name} failed (${response.status}): ${text}`);
  return body.result.structuredContent;
}

/** An MCP client of `host` (through `f`) that opted in to live diffs: each pushed diff's node id goes to `onDiff`. */
export async function connectDiffReader(f: typeof fetch, host: string, key: string, onDiff: (nodeId: string) => void): Promise<Client> {
  const reader = new Client({ name: 'e2e-diff-reader', version: '1.0.0' });
  reader.fallbackNotificationHandler = async (n): Promise<void> => {
    if (n.method === DIFF_NOTIFICATION_METHOD) onDiff((n.params as { diff: { node_id: string } }).diff.node_id);
  };
  // notifications/hyphae/diff is opt-in per stream.
  await reader.connect(new StreamableHTTPClientTransport(new URL(`http://${host}:8787/mcp`), { fetch: f, requestInit: { headers: { 'x-hyphae-key': key, 'x-hyphae-diffs': 'on' } } }));
  return reader;
}
