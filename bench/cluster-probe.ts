/**
 * The in-cluster half of `npm run bench cluster`; runs inside the local cluster's network
 * namespace (`scripts/local-cluster.sh exec`). Installs the chart with a HyphaeMesh (2 API pods,
 * one worker, managed PostgreSQL and NATS), times `helm install` → mesh Ready, then times a store
 * on one API pod until its diff is pushed live to a beacon owner connected to the other pod, with
 * the same measured for a writer on the owner's own pod as the baseline. Uninstalls at the end.
 * Prints one JSON line (ClusterProbeResult) as the last line of stdout.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { fileURLToPath } from 'node:url';
import { DIFF_NOTIFICATION_METHOD } from '../src/mcp/protocol/diff-extension.js';
import { CLUSTER_POLL_MS, callTool, clusterEnv, fetchVia, kubectl, kubectlJson, ok, run } from '../test/support/k8s/cluster.js';
import { waitFor } from '../test/support/wait-for.js';

export interface ClusterProbeResult {
  readonly installToReadyMs: number;
  readonly crossPodPushMs: readonly number[];
  readonly samePodPushMs: readonly number[];
}

const CHART = fileURLToPath(new URL('../charts/hyphae', import.meta.url));
const NS = 'hyphae-bench';
const MESH = 'hb';
const API_HOST = `${MESH}-api`;
const SAMPLES = Number(process.env.HYPHAE_BENCH_CLUSTER_SAMPLES ?? 40);

interface Pod {
  metadata: { name: string };
  status: { phase?: string; podIP?: string; conditions?: { type: string; status: string }[] };
}
interface Mesh {
  metadata: { generation: number };
  spec: { auth?: { bootstrapAdminKeySecret?: { name: string; key: string } } };
  status?: { conditions?: { type: string; status: string; observedGeneration?: number }[] };
}

const ready = (p: Pod): boolean => p.status.phase === 'Running' && (p.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
const apiPods = async (): Promise<Pod[]> =>
  (await kubectlJson<{ items: Pod[] }>('-n', NS, 'get', 'pods', '-l', `app.kubernetes.io/instance=${MESH},app.kubernetes.io/component=api`)).items.filter(ready);

async function meshAndPodsReady(): Promise<true | undefined> {
  const mesh = await kubectlJson<Mesh>('-n', NS, 'get', 'hyphaemesh', MESH);
  const c = mesh.status?.conditions?.find((x) => x.type === 'Ready');
  if (c?.status !== 'True' || c.observedGeneration !== mesh.metadata.generation) return undefined;
  const all = (await kubectlJson<{ items: Pod[] }>('-n', NS, 'get', 'pods')).items;
  return all.length > 0 && all.every(ready) && (await apiPods()).length === 2 ? true : undefined;
}

/** Store from `writer` and wait for the reader's live push of that cell: the latency in ms. */
async function pushLatency(reader: PushReader, writer: typeof fetch, key: string, content: string): Promise<number> {
  const started = performance.now();
  const stored = await callTool(writer, key, 'store', { content, cell_type: 'Risk', salience: 0.8 });
  await reader.waitFor(stored.node_id as string);
  return performance.now() - started;
}

class PushReader {
  private readonly seen = new Set<string>();
  private readonly waiters = new Map<string, () => void>();

  has(nodeId: string): boolean {
    return this.seen.has(nodeId);
  }

  onDiff(nodeId: string): void {
    this.seen.add(nodeId);
    this.waiters.get(nodeId)?.();
  }

  waitFor(nodeId: string): Promise<void> {
    if (this.seen.has(nodeId)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no live push of ${nodeId} within 60 s`)), 60_000);
      this.waiters.set(nodeId, () => {
        clearTimeout(timer);
        this.waiters.delete(nodeId);
        resolve();
      });
    });
  }
}

async function main(): Promise<void> {
  const { env, skip } = clusterEnv();
  if (!env) throw new Error(skip ?? 'not inside a local cluster');
  const [repository, tag] = env.hyphaeImage.split(/:(?=[^:]+$)/);
  await run('helm', ['uninstall', MESH, '-n', NS, '--wait']);
  const started = performance.now();
  await ok('helm', [
    'install', MESH, CHART, '-n', NS, '--create-namespace', '--wait', '--timeout', '10m',
    '--set', `image.repository=${repository}`, '--set', `image.tag=${tag}`, '--set', 'image.pullPolicy=Never',
    '--set', 'mesh.enabled=true', '--set', `mesh.name=${MESH}`, '--set', 'mesh.autoscaling.enabled=false',
    '--set', 'mesh.api.replicas=2', '--set', 'mesh.workers.replicas=1',
    '--set', `mesh.postgres.image=${env.postgresImage}`, '--set', 'mesh.postgres.storage.size=1Gi',
    '--set', `mesh.nats.image=${env.natsImage}`,
  ]);
  try {
    await waitFor('mesh Ready with every pod Ready', meshAndPodsReady, 900_000, CLUSTER_POLL_MS);
    const installToReadyMs = performance.now() - started;

    const mesh = await kubectlJson<Mesh>('-n', NS, 'get', 'hyphaemesh', MESH);
    const ref = mesh.spec.auth?.bootstrapAdminKeySecret;
    if (!ref) throw new Error('the mesh names no bootstrap admin key secret');
    const adminKey = Buffer.from(await kubectl('-n', NS, 'get', 'secret', ref.name, '-o', `jsonpath={.data.${ref.key}}`), 'base64').toString('utf8');
    const [podA, podB] = (await apiPods()) as [Pod, Pod];
    const viaA = fetchVia(podA.status.podIP!, API_HOST);
    const viaB = fetchVia(podB.status.podIP!, API_HOST);
    const mint = async (agent: string): Promise<string> => {
      const res = await viaA('http://api:8787/v1/admin/keys', {
        method: 'POST',
        headers: { 'x-hyphae-key': adminKey, 'content-type': 'application/json' },
        body: JSON.stringify({ tenant: 'default', agent }),
      });
      if (res.status !== 201) throw new Error(`minting a key failed: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { key: string }).key;
    };
    const writerKey = await mint('bench-writer');
    const readerKey = await mint('bench-reader');

    const interest = 'latency regressions in the checkout service after deploys';
    const reader = new PushReader();
    const client = new Client({ name: 'bench-reader', version: '1.0.0' });
    client.fallbackNotificationHandler = async (n): Promise<void> => {
      if (n.method === DIFF_NOTIFICATION_METHOD) reader.onDiff((n.params as { diff: { node_id: string } }).diff.node_id);
    };
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://${API_HOST}:8787/mcp`), {
        fetch: viaB,
        requestInit: { headers: { 'x-hyphae-key': readerKey, 'x-hyphae-diffs': 'on' } },
      }),
    );
    try {
      await client.callTool({ name: 'place_beacon', arguments: { text: interest, threshold: 0.5 } });
      // Until one push arrives the reader's live stream may still be opening: warm up on it.
      await waitFor('a first live push', async () => {
        const s = await callTool(viaA, writerKey, 'store', { content: `${interest}, warm-up`, cell_type: 'Risk', salience: 0.8 });
        await new Promise((r) => setTimeout(r, 1000));
        return reader.has(s.node_id as string) ? true : undefined;
      }, 120_000, CLUSTER_POLL_MS);
      // Interleaved, the order flipping each round, so warm-up and drift fall on both sides alike.
      const samePodPushMs: number[] = [];
      const crossPodPushMs: number[] = [];
      for (let i = 0; i < SAMPLES; i++) {
        const same = (): Promise<number> => pushLatency(reader, viaB, writerKey, `${interest}, same-pod observation ${i}`);
        const cross = (): Promise<number> => pushLatency(reader, viaA, writerKey, `${interest}, cross-pod observation ${i}`);
        if (i % 2 === 0) {
          samePodPushMs.push(await same());
          crossPodPushMs.push(await cross());
        } else {
          crossPodPushMs.push(await cross());
          samePodPushMs.push(await same());
        }
      }
      console.log(JSON.stringify({ installToReadyMs, crossPodPushMs, samePodPushMs } satisfies ClusterProbeResult));
    } finally {
      await client.close();
    }
  } finally {
    await run('helm', ['uninstall', MESH, '-n', NS, '--wait', '--timeout', '5m']);
    await run('kubectl', ['delete', 'namespace', NS, '--wait=true', '--ignore-not-found']);
  }
}

await main();
