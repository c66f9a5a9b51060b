// A settled HyphaeMesh costs nothing: a forced resync issues no request at all, counted in the
// operator's own request log and in the API server's apiserver_request_total.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HyphaeMeshStatus } from '../../operator/src/crd/hyphae-mesh-schema.js';
import type { KubeClient } from '../../operator/src/kube/kube-client.js';
import type { KubeObject } from '../../operator/src/kube/kube-object.js';
import { isWrite } from '../../operator/src/kube/request-log.js';
import { DEPLOYMENT, HYPHAE_MESH, collectionPath, objectPath } from '../../operator/src/kube/resource-types.js';
import type { OperatorHandle } from '../../operator/src/run-operator.js';
import { k8sSkipReason } from '../support/k8s/assets.js';
import { startControlPlane } from '../support/k8s/control-plane.js';
import type { ControlPlane } from '../support/k8s/control-plane.js';
import { clientFor, createNamespace, installCrd, list, reportWorkloadsReady, serverWriteCount } from '../support/k8s/kube-helpers.js';
import { waitFor } from '../support/wait-for.js';
import { startTestOperator } from '../support/k8s/operator-harness.js';

const skip = k8sSkipReason();

type Mesh = KubeObject & { status?: HyphaeMeshStatus };

// Its own control plane and operator: no other mesh exists, so every write the API server counts
// in the window is one this mesh's reconciles would have caused.
describe.skipIf(skip !== undefined)('operator steady state on a real kube-apiserver', () => {
  let cp: ControlPlane;
  let client: KubeClient;
  let op: OperatorHandle;

  beforeAll(async () => {
    cp = await startControlPlane();
    client = clientFor(cp);
    await installCrd(client);
    op = await startTestOperator(cp, { leaderElection: { enabled: false } });
    await waitFor('controller synced', async () => op.controller()?.hasSynced());
  });
  afterAll(async () => {
    await op?.stop();
    client?.close();
    await cp?.stop();
  });

  it('reconciles an unchanged spec with zero writes and zero reads', async () => {
    const ns = await createNamespace(client);
    await client.request({
      method: 'POST',
      path: collectionPath(HYPHAE_MESH, ns),
      body: { apiVersion: 'hyphae.dev/v1alpha1', kind: 'HyphaeMesh', metadata: { name: 'demo' }, spec: { ingress: { enabled: true, host: 'mem.example.com' }, autoscaling: { enabled: true } } },
    });
    await waitFor('objects', async () => (await list(client, DEPLOYMENT, ns)).length === 2);
    await reportWorkloadsReady(client, ns);
    await waitFor('Ready', async () => {
      const m = await client.get<Mesh>(objectPath(HYPHAE_MESH, ns, 'demo'));
      return m.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
    });
    // Ready is the last thing the operator had to write; let the reconcile that wrote it finish.
    // Reconciles that late watch events trigger from here on are of the same unchanged spec, so
    // any write they make counts against the promise too.
    await op.controller()?.idle();

    const resources = ['hyphaemeshes', 'deployments', 'statefulsets', 'services', 'secrets', 'configmaps', 'ingresses', 'horizontalpodautoscalers', 'poddisruptionbudgets', 'networkpolicies'];
    const serverBefore = await serverWriteCount(client, resources);
    expect(serverBefore).toBeGreaterThan(0); // the metric is really being read
    const mark = op.client.log.mark();
    const reconcilesBefore = await reconcileCount(op);
    // A resync queues the mesh; idle() resolves only once that reconcile is over: the point at
    // which a write would have happened.
    op.controller()?.resync();
    await op.controller()?.idle();
    expect(await reconcileCount(op)).toBeGreaterThan(reconcilesBefore);
    const requests = op.client.log.since(mark);
    expect(requests.filter(isWrite)).toEqual([]);
    // Reads too: reconciles are served from the caches. (Discovery polls on its own timer.)
    expect(requests.filter((r) => !/^\/apis\/[^/]+\/[^/]+$/.test(r.path))).toEqual([]);
    expect(await serverWriteCount(client, resources)).toBe(serverBefore);
  });
});

async function reconcileCount(op: OperatorHandle): Promise<number> {
  const metric = await op.metrics.reconciles.get();
  return metric.values.reduce((sum, v) => sum + v.value, 0);
}
