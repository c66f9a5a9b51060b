// `npm run bench` operator section: time from creating a HyphaeMesh to every one of its desired
// objects applied (against a same-run baseline: the bare server-side applies of the same objects
// by a client), and API requests per reconcile in steady state (target: 0 writes, 0 requests).
// Both sides count the same objects: the full desired set the operator's own desiredSet() yields.
import { randomUUID } from 'node:crypto';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../src/kube/kube-client.js';
import { isWrite } from '../src/kube/request-log.js';
import type { KubeObject } from '../src/kube/kube-object.js';
import { HYPHAE_MESH, collectionPath, objectPath, OWNED_TYPES, typeKey } from '../src/kube/resource-types.js';
import type { ResourceType } from '../src/kube/resource-types.js';
import { runOperator } from '../src/run-operator.js';
import { silentLogger } from '../src/runtime/logger.js';
import { desiredSet } from '../src/desired/desired-set.js';
import { effectiveSpec } from '../src/desired/hyphae-mesh.js';
import type { HyphaeMesh } from '../src/desired/hyphae-mesh.js';
import { discoverOptionalKinds } from '../src/controller/discovery.js';
import { withDesiredHash } from '../src/controller/live-compare.js';
import { findK8sAssets } from '../../test/support/k8s/assets.js';
import { startControlPlane } from '../../test/support/k8s/control-plane.js';
import { createNamespace, installCrd } from '../../test/support/k8s/kube-helpers.js';
import { waitFor } from '../../test/support/wait-for.js';

export interface OperatorBenchRow {
  metric: string;
  value: number;
  unit: string;
  baseline?: number;
  ratio?: number;
  target?: string;
  note?: string;
}

const MESHES = 5;
const RESYNCS = 10;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
};

function resourceTypeOf(obj: KubeObject): ResourceType {
  const group = obj.apiVersion.includes('/') ? (obj.apiVersion.split('/')[0] as string) : '';
  const rt = OWNED_TYPES.find((t) => typeKey(t) === typeKey({ group, kind: obj.kind }));
  if (!rt) throw new Error(`operator bench: no resource type for desired ${obj.apiVersion} ${obj.kind}`);
  return rt;
}

/** Every object the operator should apply for `mesh`, as the REST path it applies to. */
function desiredPaths(mesh: HyphaeMesh, availableKinds: ReadonlySet<string>): Map<string, KubeObject> {
  const objects = desiredSet(mesh, effectiveSpec(mesh), { postgresPassword: 'x', availableKinds }).objects;
  return new Map(objects.map((o) => [objectPath(resourceTypeOf(o), mesh.metadata.namespace, o.metadata.name), o]));
}

const meshBody = (name: string): Record<string, unknown> => ({ apiVersion: 'hyphae.dev/v1alpha1', kind: 'HyphaeMesh', metadata: { name }, spec: {} });

export async function runOperatorBench(): Promise<{ name: string; rows: OperatorBenchRow[] }> {
  const assets = findK8sAssets();
  // A missing prerequisite is a failed section, never a row of zeros.
  if (assets.missing.length > 0) throw new Error(`operator bench needs ${assets.missing.join(', ')} (set KUBEBUILDER_ASSETS or run scripts/k8s-assets.sh)`);
  const cp = await startControlPlane();
  const kc = new KubeConfig();
  kc.loadFromString(cp.kubeconfig);
  const client = KubeClient.fromKubeConfig(kc);
  const opClient = KubeClient.fromKubeConfig(kc);
  try {
    await installCrd(client);
    const available = await discoverOptionalKinds(client);

    // Baseline, before the operator runs: the same desired objects (of a server-defaulted mesh,
    // as the operator sees it) applied back to back by a bare client. No owner references: the
    // owner does not exist, and nothing must garbage-collect these.
    const baselineTimes: number[] = [];
    let objectsPerMesh = 0;
    for (let i = 0; i < MESHES; i++) {
      const ns = await createNamespace(client, 'base');
      const defaulted = await client.request<HyphaeMesh>({ method: 'POST', path: collectionPath(HYPHAE_MESH, ns), query: { dryRun: 'All' }, body: meshBody('base') });
      const paths = desiredPaths({ ...defaulted, metadata: { ...defaulted.metadata, uid: randomUUID() } }, available);
      objectsPerMesh = paths.size;
      const t0 = performance.now();
      for (const o of paths.values()) {
        await client.apply(withDesiredHash({ ...o, metadata: { ...o.metadata, ownerReferences: undefined } }), 'bench-baseline');
      }
      baselineTimes.push(performance.now() - t0);
    }

    const op = await runOperator({ client: opClient, probePort: null, log: silentLogger, leaderElection: { enabled: false } });
    const controller = await waitFor('operator synced', async () => {
      const c = op.controller();
      return c?.hasSynced() ? c : undefined;
    });

    // Create → all desired objects applied, timed from the POST to the operator's apply of the last of them.
    const createTimes: number[] = [];
    for (let i = 0; i < MESHES; i++) {
      const ns = await createNamespace(client, 'bench');
      // The desired set of this very mesh as the server will default it (a dry run persists nothing).
      const defaulted = await client.request<HyphaeMesh>({ method: 'POST', path: collectionPath(HYPHAE_MESH, ns), query: { dryRun: 'All' }, body: meshBody('bench') });
      const wanted = desiredPaths(defaulted, controller.availableKinds());
      if (wanted.size !== objectsPerMesh) throw new Error(`operator bench: ${wanted.size} desired objects, baseline applied ${objectsPerMesh}`);
      const t0 = performance.now();
      createTimes.push((await allApplied(opClient, wanted, () => client.request({ method: 'POST', path: collectionPath(HYPHAE_MESH, ns), body: meshBody('bench') }))) - t0);
    }

    // Steady state: the operator has written every mesh's status for its generation and gone idle.
    for (const m of (await client.get<{ items: HyphaeMesh[] }>(collectionPath(HYPHAE_MESH))).items) {
      await waitFor(`status of ${m.metadata.namespace}/${m.metadata.name}`, async () => {
        const live = await client.get<HyphaeMesh & { status?: { observedGeneration?: number } }>(objectPath(HYPHAE_MESH, m.metadata.namespace, m.metadata.name));
        return live.status?.observedGeneration === live.metadata.generation;
      });
    }
    await controller.idle();
    const reconcilesBefore = await reconcileCount(op.metrics.reconciles.get());
    const mark = opClient.log.mark();
    for (let i = 0; i < RESYNCS; i++) {
      controller.resync();
      await controller.idle();
    }
    const requests = opClient.log.since(mark);
    const reconciles = (await reconcileCount(op.metrics.reconciles.get())) - reconcilesBefore;
    const durations = await op.metrics.reconcileDuration.get();
    const sum = durations.values.find((v) => v.metricName?.endsWith('_sum'))?.value ?? Number.NaN;
    const count = durations.values.find((v) => v.metricName?.endsWith('_count'))?.value ?? Number.NaN;
    await op.stop();

    const create = median(createTimes);
    const base = median(baselineTimes);
    return {
      name: 'operator',
      rows: [
        {
          metric: 'create_to_all_applied_p50',
          value: create,
          unit: 'ms',
          baseline: base,
          ratio: create / base,
          note: `${MESHES} meshes, all ${objectsPerMesh} desired objects each; baseline = same applies by a bare client`,
        },
        { metric: 'steady_reconciles', value: reconciles, unit: 'reconciles', note: `${RESYNCS} forced resyncs of ${MESHES} meshes` },
        { metric: 'steady_api_requests_per_reconcile', value: reconciles ? requests.length / reconciles : Number.NaN, unit: 'req', target: '0' },
        { metric: 'steady_writes_per_reconcile', value: reconciles ? requests.filter(isWrite).length / reconciles : Number.NaN, unit: 'req', target: '0' },
        { metric: 'reconcile_duration_mean', value: (sum / count) * 1000, unit: 'ms', note: 'all reconciles in the run' },
      ],
    };
  } finally {
    client.close();
    opClient.close();
    await cp.stop();
  }
}

/**
 * Run `create` and resolve with the moment the operator's client had applied every path of
 * `wanted` (listening from before the create: applies may start before its answer is handled).
 */
async function allApplied(opClient: KubeClient, wanted: ReadonlyMap<string, KubeObject>, create: () => Promise<unknown>): Promise<number> {
  const applied = new Map<string, number>();
  const missing = (): string[] => [...wanted.keys()].filter((p) => !applied.has(p));
  let off: () => void = () => undefined;
  let timer: NodeJS.Timeout | undefined;
  const done = new Promise<number>((resolve, reject) => {
    off = opClient.log.onRequest((r) => {
      if (r.method !== 'PATCH' || r.status >= 300 || !wanted.has(r.path) || applied.has(r.path)) return;
      applied.set(r.path, performance.now());
      if (missing().length === 0) resolve(Math.max(...applied.values()));
    });
    timer = setTimeout(() => reject(new Error(`operator bench: never applied ${missing().join(', ')}`)), 60_000);
  });
  try {
    await create();
    return await done;
  } finally {
    clearTimeout(timer);
    off();
  }
}

async function reconcileCount(metric: Promise<{ values: Array<{ value: number }> }>): Promise<number> {
  return (await metric).values.reduce((s, v) => s + v.value, 0);
}
