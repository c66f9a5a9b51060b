// `npm run bench` operator section: time from creating a HyphaeMesh to all its objects applied
// (against a same-run baseline: the bare server-side applies of the same objects by a client),
// and API requests per reconcile in steady state (target: 0 writes, 0 requests).
import { randomUUID } from 'node:crypto';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient, isWrite } from '../src/kube/kube-client.js';
import type { KubeObject } from '../src/kube/kube-object.js';
import { HYPHAE_MESH, collectionPath, objectPath, OWNED_TYPES, typeKey } from '../src/kube/resource-types.js';
import { runOperator } from '../src/run-operator.js';
import { silentLogger } from '../src/runtime/logger.js';
import { desiredSet } from '../src/desired/desired-set.js';
import { effectiveSpec } from '../src/desired/hyphae-mesh.js';
import type { HyphaeMesh } from '../src/desired/hyphae-mesh.js';
import { withDesiredHash } from '../src/controller/live-compare.js';
import { findK8sAssets } from '../../test/k8s/assets.js';
import { startControlPlane } from '../../test/k8s/control-plane.js';
import { createNamespace, installCrd } from '../../test/k8s/kube-helpers.js';

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
const OBJECTS_PER_MESH = 10;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
};

export async function runOperatorBench(): Promise<{ name: string; rows: OperatorBenchRow[] }> {
  const assets = findK8sAssets();
  if (assets.missing.length > 0) {
    return {
      name: 'operator',
      rows: [{ metric: 'skipped', value: 0, unit: '', note: `missing ${assets.missing.join(', ')} (KUBEBUILDER_ASSETS or scripts/k8s-assets.sh)` }],
    };
  }
  const cp = await startControlPlane();
  const kc = new KubeConfig();
  kc.loadFromString(cp.kubeconfig);
  const client = await KubeClient.fromKubeConfig(kc);
  const opClient = await KubeClient.fromKubeConfig(kc);
  try {
    await installCrd(client);
    // Baseline, before the operator runs: the same objects applied back to back by a bare client.
    const baselineTimes: number[] = [];
    for (let i = 0; i < MESHES; i++) {
      const ns = await createNamespace(client, 'base');
      const mesh: HyphaeMesh = {
        apiVersion: 'hyphae.dev/v1alpha1',
        kind: 'HyphaeMesh',
        metadata: { name: 'base', namespace: ns, uid: randomUUID() },
        spec: {},
      };
      const objs = desiredSet(mesh, effectiveSpec(mesh), { postgresPassword: 'x', availableKinds: new Set() }).objects;
      const t0 = performance.now();
      for (const o of objs) {
        const group = o.apiVersion.includes('/') ? (o.apiVersion.split('/')[0] as string) : '';
        const rt = OWNED_TYPES.find((t) => typeKey(t) === typeKey({ group, kind: o.kind }));
        if (!rt) continue;
        // No owner references: the owner does not exist, and nothing must garbage-collect these.
        const raw: KubeObject = withDesiredHash({ ...o, metadata: { ...o.metadata, ownerReferences: undefined } });
        await client.apply(objectPath(rt, ns, raw.metadata.name), raw, 'bench-baseline');
      }
      baselineTimes.push(performance.now() - t0);
    }

    const op = await runOperator({ client: opClient, probePort: null, log: silentLogger, leaderElection: { enabled: false } });
    const deadline = Date.now() + 30_000;
    while (!op.controller()?.hasSynced() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));

    // Create → all objects applied, timed from the POST to the operator's last owned-object apply.
    const createTimes: number[] = [];
    for (let i = 0; i < MESHES; i++) {
      const ns = await createNamespace(client, 'bench');
      const applied = new Promise<number>((resolve) => {
        let n = 0;
        const off = opClient.log.onRequest((r) => {
          if (r.method === 'PATCH' && r.path.includes(`/namespaces/${ns}/`) && !r.path.startsWith('/apis/hyphae.dev/') && ++n === OBJECTS_PER_MESH) {
            off();
            resolve(performance.now());
          }
        });
      });
      const t0 = performance.now();
      await client.request({
        method: 'POST',
        path: collectionPath(HYPHAE_MESH, ns),
        body: { apiVersion: 'hyphae.dev/v1alpha1', kind: 'HyphaeMesh', metadata: { name: 'bench' }, spec: {} },
      });
      createTimes.push((await applied) - t0);
    }

    // Steady state: let every watch event settle, then force resyncs and count requests.
    await settle(() => op.controller()?.idle() ?? Promise.resolve());
    const reconcilesBefore = await reconcileCount(op.metrics.reconciles.get());
    const mark = opClient.log.mark();
    for (let i = 0; i < RESYNCS; i++) {
      op.controller()?.resync();
      await op.controller()?.idle();
    }
    await settle(() => op.controller()?.idle() ?? Promise.resolve());
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
        { metric: 'create_to_all_applied_p50', value: create, unit: 'ms', baseline: base, ratio: create / base, note: `${MESHES} meshes, ${OBJECTS_PER_MESH} objects each; baseline = same applies by a bare client` },
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

async function reconcileCount(metric: Promise<{ values: Array<{ value: number }> }>): Promise<number> {
  return (await metric).values.reduce((s, v) => s + v.value, 0);
}

async function settle(idle: () => Promise<void>): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setTimeout(r, 300));
    await idle();
  }
}
