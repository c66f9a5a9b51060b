// The chart on a real node: `helm install` with the operator as a pod under the chart's RBAC and
// a HyphaeMesh (2 API pods, a worker, managed PostgreSQL and NATS) built into running pods from
// the locally built images; memory stored and recalled through the API Service over MCP; live
// gossip across two API pods; pods and an owned Deployment deleted and recovered; operator
// failover; `helm upgrade`; `helm uninstall`. Runs inside the cluster's network namespace
// (`npm run test:e2e` starts the cluster and always tears it down).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIFF_NOTIFICATION_METHOD } from '../../src/mcp/protocol/diff-extension.js';
import { CLUSTER_DEADLINE_MS, CLUSTER_POLL_MS, callTool, clusterEnv, fetchVia, kubectl, kubectlJson, meshReady, ok, run } from '../support/k8s/cluster.js';
import { waitFor } from '../support/wait-for.js';

const { env, skip } = clusterEnv();
const CHART = fileURLToPath(new URL('../../charts/hyphae', import.meta.url));
const NS = 'hyphae-e2e';
const RELEASE = 'hy';
const MESH = 'hy';
const API_HOST = `${MESH}-api`;

interface Pod {
  metadata: { name: string; uid: string; labels?: Record<string, string> };
  status: { phase?: string; podIP?: string; conditions?: { type: string; status: string }[] };
}
interface Condition {
  type: string;
  status: string;
  observedGeneration?: number;
}
interface Mesh {
  metadata: { generation: number };
  spec: { auth?: { bootstrapAdminKeySecret?: { name: string; key: string } } };
  status?: { conditions?: Condition[] };
}

const ready = (p: Pod): boolean => p.status.phase === 'Running' && (p.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
const pods = async (selector: string): Promise<Pod[]> => (await kubectlJson<{ items: Pod[] }>('-n', NS, 'get', 'pods', '-l', selector)).items;
const component = (c: string): string => `app.kubernetes.io/instance=${MESH},app.kubernetes.io/component=${c}`;

function helmValues(e: NonNullable<typeof env>, extra: string[] = []): string[] {
  const [repository, tag] = e.hyphaeImage.split(/:(?=[^:]+$)/);
  return [
    '--set', `image.repository=${repository}`, '--set-string', `image.tag=${tag}`, '--set', 'image.pullPolicy=Never',
    '--set', 'operator.replicas=2',
    '--set', 'mesh.enabled=true', '--set', `mesh.name=${MESH}`,
    '--set', 'mesh.autoscaling.enabled=false', '--set', 'mesh.api.replicas=2', '--set', 'mesh.workers.replicas=1',
    '--set', `mesh.postgres.image=${e.postgresImage}`, '--set', 'mesh.postgres.storage.size=1Gi',
    '--set', `mesh.nats.image=${e.natsImage}`,
    ...extra,
  ];
}


/** Every pod of the release Running and Ready, and as many as expected of each component. */
async function allReady(expected: Record<string, number>): Promise<true | undefined> {
  const all = (await kubectlJson<{ items: Pod[] }>('-n', NS, 'get', 'pods')).items;
  if (all.length === 0 || !all.every(ready)) return undefined;
  for (const [c, n] of Object.entries(expected)) {
    if ((await pods(component(c))).filter(ready).length !== n) return undefined;
  }
  return true;
}

describe.skipIf(skip !== undefined)('the chart on a real Kubernetes node', () => {
  const e = env as ClusterEnvDefined;
  type ClusterEnvDefined = NonNullable<typeof env>;
  let adminKey: string;
  let writerKey: string;
  let readerKey: string;
  let serviceIP: string;
  const acknowledged: string[] = [];
  const viaService = (): typeof fetch => fetchVia(serviceIP, API_HOST);

  async function rest(f: typeof fetch, key: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
    let res: Response;
    // As a client should: a 429 (the key's per-minute rate, spent by the load tests) waits its Retry-After.
    for (let attempt = 0; ; attempt++) {
      res = await f(`http://api:8787${path}`, {
        method,
        headers: { 'x-hyphae-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      if (res.status !== 429 || attempt >= 10) break;
      await res.text();
      await new Promise((r) => setTimeout(r, Math.min(60, Number(res.headers.get('retry-after') ?? 1) || 1) * 1000));
    }
    const text = await res.text();
    return { status: res.status, json: text ? (JSON.parse(text) as unknown) : undefined };
  }

  beforeAll(async () => {
    await run('helm', ['uninstall', RELEASE, '-n', NS, '--wait']);
    await run('kubectl', ['delete', 'namespace', NS, '--wait=true', '--ignore-not-found']);
    await ok('helm', ['install', RELEASE, CHART, '-n', NS, '--create-namespace', '--wait', '--timeout', '10m', ...helmValues(e)]);
  }, 900_000);

  afterAll(async () => {
    // The cluster itself is torn down by the runner; leave no release behind if a test failed early.
    await run('helm', ['uninstall', RELEASE, '-n', NS, '--wait']);
  }, 300_000);

  it('reconciles the HyphaeMesh to Ready with every pod Running and Ready', async () => {
    await waitFor('mesh Ready', () => meshReady(NS, MESH), 600_000, CLUSTER_POLL_MS);
    await waitFor('all pods ready', () => allReady({ api: 2, worker: 1, postgres: 1, nats: 3 }), 600_000, CLUSTER_POLL_MS);
    const operators = await pods('app.kubernetes.io/name=hyphae,app.kubernetes.io/component=operator');
    expect(operators.filter(ready)).toHaveLength(2);
    // The operator runs as a pod under the chart's ServiceAccount, not with cluster-admin.
    const sa = await kubectl('-n', NS, 'get', 'pod', operators[0]!.metadata.name, '-o', 'jsonpath={.spec.serviceAccountName}');
    expect(sa).toMatch(/hyphae/);
    const canDeleteNodes = await run('kubectl', ['auth', 'can-i', 'delete', 'nodes', `--as=system:serviceaccount:${NS}:${sa}`]);
    expect(canDeleteNodes.stdout.trim()).toBe('no');
  }, 900_000);

  it('stores and recalls through the API Service over MCP with keys minted by the bootstrap admin key', async () => {
    serviceIP = (await kubectl('-n', NS, 'get', 'service', API_HOST, '-o', 'jsonpath={.spec.clusterIP}')).trim();
    const mesh = await kubectlJson<Mesh>('-n', NS, 'get', 'hyphaemesh', MESH);
    const ref = mesh.spec.auth?.bootstrapAdminKeySecret;
    expect(ref).toBeDefined();
    const b64 = await kubectl('-n', NS, 'get', 'secret', ref!.name, '-o', `jsonpath={.data.${ref!.key}}`);
    adminKey = Buffer.from(b64, 'base64').toString('utf8');
    const mint = async (agent: string): Promise<string> => {
      const r = await rest(viaService(), adminKey, 'POST', '/v1/admin/keys', { tenant: 'default', agent });
      expect(r.status).toBe(201);
      return (r.json as { key: string }).key;
    };
    writerKey = await mint('e2e-writer');
    readerKey = await mint('e2e-reader');
    // A wrong key is refused before anything reaches the database.
    expect((await rest(viaService(), 'hy_wrong', 'GET', '/v1/beacons')).status).toBe(401);

    const content = 'the billing service retries card charges at most three times';
    const stored = await callTool(viaService(), writerKey, 'store', { content, cell_type: 'Decision', salience: 0.7 });
    expect(stored.node_id).toMatch(/^[0-9a-f-]{36}$/);
    acknowledged.push(stored.node_id as string);
    const recalled = await callTool(viaService(), writerKey, 'recall', { query: content, k: 3 });
    const results = recalled.results as { node_id: string; distance: number }[];
    expect(results[0]?.node_id).toBe(stored.node_id);
    const node = await rest(viaService(), writerKey, 'GET', `/v1/cells/${String(stored.node_id)}`);
    expect(node.status).toBe(200);
    expect((node.json as { content: string }).content).toBe(content);
  }, 300_000);

  it('gossips a store on one API pod to the inbox of, and live to, a beacon owner on the other', async () => {
    const api = (await pods(component('api'))).filter(ready);
    expect(api).toHaveLength(2);
    const [podA, podB] = api as [Pod, Pod];
    expect(podA.status.podIP).not.toBe(podB.status.podIP);
    const interest = 'flaky integration tests in the payments suite';
    const reader = new Client({ name: 'e2e-reader', version: '1.0.0' });
    const received: { node_id: string }[] = [];
    reader.fallbackNotificationHandler = async (n): Promise<void> => {
      if (n.method === DIFF_NOTIFICATION_METHOD) received.push((n.params as { diff: { node_id: string } }).diff);
    };
    await reader.connect(
      new StreamableHTTPClientTransport(new URL(`http://${API_HOST}:8787/mcp`), {
        fetch: fetchVia(podB.status.podIP!, API_HOST),
        // notifications/hyphae/diff is opt-in per stream.
        requestInit: { headers: { 'x-hyphae-key': readerKey, 'x-hyphae-diffs': 'on' } },
      }),
    );
    try {
      await reader.callTool({ name: 'place_beacon', arguments: { text: interest, threshold: 0.5 } });
      // The reader's live stream (GET /mcp) is open on pod B once the SDK has connected it; a
      // store until one arrives, so a stream still opening cannot miss the push.
      const fromA = fetchVia(podA.status.podIP!, API_HOST);
      const stored: string[] = [];
      await waitFor('live push across pods', async () => {
        const s = await callTool(fromA, writerKey, 'store', { content: `${interest} (${stored.length})`, cell_type: 'Risk', salience: 0.8 });
        stored.push(s.node_id as string);
        await new Promise((r) => setTimeout(r, 1000));
        return received.length > 0 ? true : undefined;
      }, 120_000, CLUSTER_POLL_MS);
      expect(stored).toContain(received[0]!.node_id);
      acknowledged.push(...stored);
      const inbox = await reader.callTool({ name: 'drain_inbox', arguments: { page_size: 100 } });
      const diffs = (inbox.structuredContent as { diffs: { node_id: string }[] }).diffs.map((d) => d.node_id);
      expect(diffs).toEqual(expect.arrayContaining(stored));
    } finally {
      await reader.close();
    }
  }, 300_000);

  it('loses no acknowledged store when an API pod is deleted under load through the Service', async () => {
    const [victim] = (await pods(component('api'))).filter(ready);
    let stop = false;
    let failures = 0;
    const load = (async (): Promise<void> => {
      for (let i = 0; !stop; i++) {
        try {
          const s = await callTool(viaService(), writerKey, 'store', { content: `load cell ${i} during an api pod deletion`, cell_type: 'Fact' });
          acknowledged.push(s.node_id as string);
        } catch {
          failures++; // refused or reset while the pod goes away: not acknowledged, not counted
        }
      }
    })();
    const before = acknowledged.length;
    await kubectl('-n', NS, 'delete', 'pod', victim!.metadata.name, '--wait=true');
    await waitFor('api back to 2 ready pods', () => allReady({ api: 2 }), 300_000, CLUSTER_POLL_MS);
    await waitFor('stores acknowledged after the deletion', async () => (acknowledged.length > before + 5 ? true : undefined), 120_000, CLUSTER_POLL_MS);
    stop = true;
    await load;
    console.log(`api pod deletion: ${acknowledged.length - before} stores acknowledged, ${failures} refused`);
    for (const id of acknowledged) {
      const r = await rest(viaService(), writerKey, 'GET', `/v1/cells/${id}`);
      expect(r.status, `acknowledged cell ${id}`).toBe(200);
    }
  }, 600_000);

  it('restarts the PostgreSQL pod on its volume with all data', async () => {
    const [pg] = await pods(component('postgres'));
    await kubectl('-n', NS, 'delete', 'pod', pg!.metadata.name, '--wait=true');
    await waitFor('postgres replaced and ready', async () => {
      const now = (await pods(component('postgres'))).filter(ready);
      return now.length === 1 && now[0]!.metadata.uid !== pg!.metadata.uid ? true : undefined;
    }, CLUSTER_DEADLINE_MS, CLUSTER_POLL_MS);
    await waitFor('api ready again', () => allReady({ api: 2, postgres: 1 }), CLUSTER_DEADLINE_MS, CLUSTER_POLL_MS);
    for (const id of acknowledged) {
      const r = await waitFor(`cell ${id} readable`, async () => {
        const x = await rest(viaService(), writerKey, 'GET', `/v1/cells/${id}`);
        return x.status === 200 ? x : undefined;
      }, 120_000, CLUSTER_POLL_MS);
      expect(r.status).toBe(200);
    }
  }, 600_000);

  it('fails over to the other operator when the leader is deleted, and the new leader recreates a deleted owned Deployment', async () => {
    const holder = async (): Promise<string> =>
      (await kubectl('-n', NS, 'get', 'lease', 'hyphae-operator', '-o', 'jsonpath={.spec.holderIdentity}')).trim();
    const operators = (await pods('app.kubernetes.io/name=hyphae,app.kubernetes.io/component=operator')).filter(ready);
    const leaderId = await waitFor('a leader', async () => ((await holder()) || undefined), CLUSTER_DEADLINE_MS, CLUSTER_POLL_MS);
    const leader = operators.find((p) => leaderId.startsWith(`${p.metadata.name}-`));
    expect(leader, `lease holder ${leaderId} is one of the operator pods`).toBeDefined();
    const standby = operators.find((p) => p !== leader)!;
    await kubectl('-n', NS, 'delete', 'pod', leader!.metadata.name, '--wait=true');
    // Another operator pod takes the lease: the standby, or — when the Lease was released on
    // SIGTERM and both campaign — the leader's replacement pod, which may win that race.
    let seen = '';
    const next = await waitFor('another operator pod takes the lease', async () => {
      seen = await holder();
      const now = await pods('app.kubernetes.io/name=hyphae,app.kubernetes.io/component=operator');
      const pod = now.find((p) => seen.startsWith(`${p.metadata.name}-`));
      return pod !== undefined && pod.metadata.name !== leader!.metadata.name ? seen : undefined;
    }, CLUSTER_DEADLINE_MS, CLUSTER_POLL_MS).catch((err: unknown) => {
      throw new Error(`${String(err)}; the Lease's holder at the end: ${seen || '(none)'}`);
    });
    expect(next).not.toBe(leaderId);
    console.log(`operator failover: the lease went to ${next.startsWith(`${standby.metadata.name}-`) ? 'the standby' : "the deleted leader's replacement"}`);

    const worker = `${MESH}-worker`;
    const uid = (await kubectl('-n', NS, 'get', 'deployment', worker, '-o', 'jsonpath={.metadata.uid}')).trim();
    await kubectl('-n', NS, 'delete', 'deployment', worker, '--wait=true');
    await waitFor('worker Deployment recreated', async () => {
      const r = await run('kubectl', ['-n', NS, 'get', 'deployment', worker, '-o', 'jsonpath={.metadata.uid}']);
      return r.code === 0 && r.stdout.trim() !== '' && r.stdout.trim() !== uid ? true : undefined;
    }, CLUSTER_DEADLINE_MS, CLUSTER_POLL_MS);
    await waitFor('worker ready again', () => allReady({ worker: 1 }), CLUSTER_DEADLINE_MS, CLUSTER_POLL_MS);
    await waitFor('mesh Ready again', () => meshReady(NS, MESH), CLUSTER_DEADLINE_MS, CLUSTER_POLL_MS);
  }, 600_000);

  it('rolls a helm upgrade with changed values through to the pods', async () => {
    await ok('helm', ['upgrade', RELEASE, CHART, '-n', NS, '--wait', '--timeout', '10m', ...helmValues(e, ['--set', 'mesh.workers.replicas=2'])]);
    await waitFor('2 workers ready', () => allReady({ worker: 2, api: 2 }), 600_000, CLUSTER_POLL_MS);
    await waitFor('mesh Ready at the new generation', () => meshReady(NS, MESH), CLUSTER_DEADLINE_MS, CLUSTER_POLL_MS);
  }, 900_000);

  it('helm uninstall removes the workloads and keeps the CRD', async () => {
    await ok('helm', ['uninstall', RELEASE, '-n', NS, '--wait', '--timeout', '5m']);
    await waitFor('workloads gone', async () => {
      const left = await kubectl('-n', NS, 'get', 'deployments,statefulsets,hyphaemeshes', '-o', 'name');
      return left.trim() === '' ? true : undefined;
    }, CLUSTER_DEADLINE_MS, CLUSTER_POLL_MS);
    await waitFor('pods gone', async () => ((await kubectl('-n', NS, 'get', 'pods', '-o', 'name')).trim() === '' ? true : undefined), CLUSTER_DEADLINE_MS, CLUSTER_POLL_MS);
    const crd = await run('kubectl', ['get', 'crd', 'hyphaemeshes.hyphae.dev']);
    expect(crd.code).toBe(0);
  }, 600_000);
});
