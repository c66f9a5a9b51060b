// The operator reconciling HyphaeMesh objects on a real kube-apiserver + etcd. No kubelet runs,
// so the test reports workload status itself, the way the kubelet and controllers would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HyphaeMeshStatus } from '../../operator/src/crd/hyphae-mesh-schema.js';
import type { KubeClient } from '../../operator/src/kube/kube-client.js';
import type { KubeObject } from '../../operator/src/kube/kube-object.js';
import {
  CNPG_CLUSTER,
  CONFIG_MAP,
  DEPLOYMENT,
  HPA,
  HYPHAE_MESH,
  INGRESS,
  NETWORK_POLICY,
  PDB,
  SECRET,
  SERVICE,
  SERVICE_MONITOR,
  STATEFUL_SET,
  collectionPath,
  objectPath,
} from '../../operator/src/kube/resource-types.js';
import type { OperatorHandle } from '../../operator/src/run-operator.js';
import { k8sSkipReason } from '../support/k8s/assets.js';
import { startControlPlane } from '../support/k8s/control-plane.js';
import type { ControlPlane } from '../support/k8s/control-plane.js';
import { clientFor, createNamespace, installCrd, list, reportWorkloadsReady, tryGet } from '../support/k8s/kube-helpers.js';
import { waitFor } from '../support/wait-for.js';
import { startTestOperator } from '../support/k8s/operator-harness.js';

const skip = k8sSkipReason();

type Mesh = KubeObject & { spec: Record<string, unknown>; status?: HyphaeMeshStatus };
type PodTemplate = {
  securityContext: Record<string, unknown>;
  initContainers: Array<{ name: string; resources?: { requests?: Record<string, string> } }>;
  containers: Array<{ name: string; resources?: { requests?: Record<string, string> } }>;
};

describe.skipIf(skip !== undefined)('operator on a real kube-apiserver', () => {
  let cp: ControlPlane;
  let client: KubeClient;
  let op: OperatorHandle;

  beforeAll(async () => {
    cp = await startControlPlane();
    client = clientFor(cp);
    await installCrd(client);
    op = await startTestOperator(cp, { leaderElection: { enabled: false }, discoveryIntervalMs: 300 });
    await waitFor('controller synced', async () => op.controller()?.hasSynced());
  });
  afterAll(async () => {
    await op?.stop();
    client?.close();
    await cp?.stop();
  });

  const createMesh = (ns: string, name: string, spec: Record<string, unknown> = {}): Promise<Mesh> =>
    client.request<Mesh>({
      method: 'POST',
      path: collectionPath(HYPHAE_MESH, ns),
      body: { apiVersion: 'hyphae.dev/v1alpha1', kind: 'HyphaeMesh', metadata: { name }, spec },
    });
  const getMesh = (ns: string, name: string): Promise<Mesh> => client.get<Mesh>(objectPath(HYPHAE_MESH, ns, name));
  const patchSpec = (ns: string, name: string, spec: Record<string, unknown>): Promise<Mesh> =>
    client.mergePatch<Mesh>(objectPath(HYPHAE_MESH, ns, name), { spec });
  const condition = (m: Mesh, type: string): { status: string; reason: string; observedGeneration?: number } | undefined =>
    m.status?.conditions?.find((c) => c.type === type);

  const expected = [
    [CONFIG_MAP, 'demo-config'],
    [SECRET, 'demo-postgres'],
    [SERVICE, 'demo-postgres'],
    [STATEFUL_SET, 'demo-postgres'],
    [SERVICE, 'demo-nats'],
    [SERVICE, 'demo-nats-cluster'],
    [STATEFUL_SET, 'demo-nats'],
    [SERVICE, 'demo-api'],
    [DEPLOYMENT, 'demo-api'],
    [DEPLOYMENT, 'demo-worker'],
    [NETWORK_POLICY, 'demo-api'],
    [NETWORK_POLICY, 'demo-worker'],
    [NETWORK_POLICY, 'demo-postgres'],
    [NETWORK_POLICY, 'demo-nats'],
    [PDB, 'demo-api'],
    [PDB, 'demo-nats'],
  ] as const;

  it('creates every expected object, each controlled by the HyphaeMesh', async () => {
    const ns = await createNamespace(client);
    const mesh = await createMesh(ns, 'demo');
    for (const [rt, name] of expected) {
      const obj = await waitFor(`${rt.kind}/${name}`, () => tryGet(client, rt, ns, name));
      expect(obj.metadata.ownerReferences, `${rt.kind}/${name}`).toEqual([
        { apiVersion: 'hyphae.dev/v1alpha1', kind: 'HyphaeMesh', name: 'demo', uid: mesh.metadata.uid, controller: true, blockOwnerDeletion: true },
      ]);
      const managers = (obj.metadata as { managedFields?: Array<{ manager: string; operation: string }> }).managedFields ?? [];
      expect(managers.some((m) => m.manager === 'hyphae-operator' && m.operation === 'Apply'), `${rt.kind}/${name} applied`).toBe(true);
    }
    const st = await waitFor('status written', async () => (await getMesh(ns, 'demo')).status?.conditions?.length);
    expect(st).toBe(8);
    // A mesh created without the chart still gets resource requests (CRD defaults), migrate included.
    const api = (await tryGet(client, DEPLOYMENT, ns, 'demo-api')) as KubeObject & { spec: { template: { spec: PodTemplate } } };
    const pod = api.spec.template.spec;
    expect(pod.securityContext).toMatchObject({ runAsUser: 65532, runAsGroup: 65532, fsGroup: 65532 });
    for (const c of [...pod.initContainers, ...pod.containers]) expect(c.resources?.requests, c.name).toEqual({ cpu: '100m', memory: '256Mi' });
    expect((await tryGet(client, PDB, ns, 'demo-nats'))?.spec).toMatchObject({ maxUnavailable: 1 });
    expect(await tryGet(client, PDB, ns, 'demo-worker')).toBeUndefined();
  });

  it('drives conditions to Ready as workloads report ready, with observedGeneration', async () => {
    const ns = await createNamespace(client);
    await createMesh(ns, 'demo');
    await waitFor('objects', async () => (await list(client, DEPLOYMENT, ns)).length === 2 && (await list(client, STATEFUL_SET, ns)).length === 2);
    let mesh = await waitFor('Progressing', async () => {
      const m = await getMesh(ns, 'demo');
      return condition(m, 'Progressing')?.status === 'True' ? m : undefined;
    });
    expect(condition(mesh, 'Ready')?.status).toBe('False');
    expect(condition(mesh, 'ApiReady')?.reason).toBe('RollingOut');

    await reportWorkloadsReady(client, ns, { 'demo-nats': 1 });
    mesh = await waitFor('nats not ready', async () => {
      const m = await getMesh(ns, 'demo');
      return condition(m, 'ApiReady')?.status === 'True' && condition(m, 'DatabaseReady')?.status === 'True' ? m : undefined;
    });
    expect(condition(mesh, 'NatsReady')).toMatchObject({ status: 'False', reason: 'ReplicasNotReady' });
    expect(condition(mesh, 'DatabaseReady')?.status).toBe('True');
    expect(condition(mesh, 'Ready')?.status).toBe('False');

    await reportWorkloadsReady(client, ns);
    mesh = await waitFor('Ready', async () => {
      const m = await getMesh(ns, 'demo');
      return condition(m, 'Ready')?.status === 'True' ? m : undefined;
    });
    for (const c of mesh.status?.conditions ?? []) expect(c.observedGeneration, c.type).toBe(mesh.metadata.generation);
    expect(condition(mesh, 'Progressing')?.status).toBe('False');
    expect(condition(mesh, 'Degraded')?.status).toBe('False');
    expect(mesh.status?.observedGeneration).toBe(mesh.metadata.generation);
    expect(mesh.status?.api).toMatchObject({ replicas: 2, readyReplicas: 2 });
  });

  it('rolls a spec change through (replicas, image) and follows observedGeneration', async () => {
    const ns = await createNamespace(client);
    await createMesh(ns, 'demo');
    await waitFor('deployments', async () => (await list(client, DEPLOYMENT, ns)).length === 2);
    await reportWorkloadsReady(client, ns);
    await waitFor('Ready', async () => condition(await getMesh(ns, 'demo'), 'Ready')?.status === 'True');

    const changed = await patchSpec(ns, 'demo', { api: { replicas: 5 }, image: { tag: '9.9.9' }, workers: { replicas: 3 } });
    expect(changed.metadata.generation).toBe(2);
    const api = await waitFor('api rolled', async () => {
      const d = await tryGet(client, DEPLOYMENT, ns, 'demo-api');
      return (d?.spec as { replicas?: number } | undefined)?.replicas === 5 ? d : undefined;
    });
    const pod = (api.spec as { template: { spec: { containers: Array<{ image: string }> } } }).template.spec;
    expect(pod.containers[0]?.image).toBe('ghcr.io/hyphae-dev/hyphae:9.9.9');
    // The worker is applied after the API in the same reconcile: wait for it rather than race it.
    await waitFor('worker rolled', async () => ((await tryGet(client, DEPLOYMENT, ns, 'demo-worker'))?.spec as { replicas?: number } | undefined)?.replicas === 3);
    const workerPdb = await waitFor('worker PodDisruptionBudget', () => tryGet(client, PDB, ns, 'demo-worker'));
    expect(workerPdb.spec).toMatchObject({ maxUnavailable: 1 });

    const rolling = await waitFor('status at generation 2', async () => {
      const m = await getMesh(ns, 'demo');
      return m.status?.observedGeneration === 2 ? m : undefined;
    });
    expect(condition(rolling, 'Ready')?.status).toBe('False');
    expect(condition(rolling, 'Ready')?.observedGeneration).toBe(2);
    await reportWorkloadsReady(client, ns);
    await waitFor('Ready again', async () => condition(await getMesh(ns, 'demo'), 'Ready')?.status === 'True');
  });

  it('recreates a deleted owned Deployment', async () => {
    const ns = await createNamespace(client);
    await createMesh(ns, 'demo');
    const before = await waitFor('api deployment', () => tryGet(client, DEPLOYMENT, ns, 'demo-api'));
    await client.request({ method: 'DELETE', path: objectPath(DEPLOYMENT, ns, 'demo-api') });
    const after = await waitFor('recreated', async () => {
      const d = await tryGet(client, DEPLOYMENT, ns, 'demo-api');
      return d && d.metadata.uid !== before.metadata.uid ? d : undefined;
    });
    expect(after.metadata.ownerReferences?.[0]?.name).toBe('demo');
  });

  it('reverts drift in a field it owns', async () => {
    const ns = await createNamespace(client);
    await createMesh(ns, 'demo', { workers: { replicas: 2 } });
    await waitFor('worker', () => tryGet(client, DEPLOYMENT, ns, 'demo-worker'));
    await client.mergePatch(objectPath(DEPLOYMENT, ns, 'demo-worker'), { spec: { replicas: 7 } });
    await waitFor('reverted', async () => ((await tryGet(client, DEPLOYMENT, ns, 'demo-worker'))?.spec as { replicas: number }).replicas === 2);
  });

  it('prunes objects of a feature that is switched off', async () => {
    const ns = await createNamespace(client);
    await createMesh(ns, 'demo', { ingress: { enabled: true, host: 'mem.example.com' }, autoscaling: { enabled: true } });
    await waitFor('ingress and hpa', async () => (await tryGet(client, INGRESS, ns, 'demo-api')) && (await tryGet(client, HPA, ns, 'demo-api')));
    const dep = await tryGet(client, DEPLOYMENT, ns, 'demo-api');
    expect((dep?.spec as { replicas?: number }).replicas).toBe(1); // server default: the HPA owns the count
    await waitFor('network policies', () => tryGet(client, NETWORK_POLICY, ns, 'demo-postgres'));
    await patchSpec(ns, 'demo', { ingress: { enabled: false }, autoscaling: { enabled: false }, networkPolicy: { enabled: false } });
    await waitFor('pruned', async () => !(await tryGet(client, INGRESS, ns, 'demo-api')) && !(await tryGet(client, HPA, ns, 'demo-api')));
    await waitFor('policies pruned', async () => (await list(client, NETWORK_POLICY, ns)).length === 0);
    await waitFor('replicas back', async () => ((await tryGet(client, DEPLOYMENT, ns, 'demo-api'))?.spec as { replicas: number }).replicas === 2);
  });

  it('reports kinds the cluster lacks (CNPG, ServiceMonitor) in conditions instead of failing', async () => {
    const ns = await createNamespace(client);
    await createMesh(ns, 'demo', { postgres: { mode: 'cnpg', instances: 3 }, monitoring: { serviceMonitor: { enabled: true } } });
    const mesh = await waitFor('conditions', async () => {
      const m = await getMesh(ns, 'demo');
      return condition(m, 'OptionalKindsAvailable') ? m : undefined;
    });
    expect(condition(mesh, 'OptionalKindsAvailable')).toMatchObject({ status: 'False', reason: 'KindsMissing' });
    expect(condition(mesh, 'DatabaseReady')).toMatchObject({ status: 'False', reason: 'KindMissing' });
    expect(condition(mesh, 'Degraded')).toMatchObject({ status: 'True', reason: 'DependencyMissing' });
    expect(mesh.status?.missingKinds).toEqual(['Cluster.postgresql.cnpg.io', 'ServiceMonitor.monitoring.coreos.com']);
    expect(await tryGet(client, DEPLOYMENT, ns, 'demo-api')).toBeDefined();
    expect(await tryGet(client, STATEFUL_SET, ns, 'demo-postgres')).toBeUndefined();
  });

  // Last in the file: it installs add-on CRDs into the shared control plane.
  it('starts managing CNPG Clusters and ServiceMonitors once their CRDs appear, without a restart', async () => {
    const ns = await createNamespace(client);
    await createMesh(ns, 'late', { postgres: { mode: 'cnpg', instances: 2 }, monitoring: { serviceMonitor: { enabled: true } } });
    await waitFor('kinds missing', async () => condition(await getMesh(ns, 'late'), 'OptionalKindsAvailable')?.status === 'False');

    await installAddonCrd(client, 'postgresql.cnpg.io', 'Cluster', 'clusters');
    await installAddonCrd(client, 'monitoring.coreos.com', 'ServiceMonitor', 'servicemonitors');
    const cluster = await waitFor('CNPG Cluster', () => tryGet(client, CNPG_CLUSTER, ns, 'late-pg'), 15_000);
    expect(cluster.spec).toMatchObject({ instances: 2 });
    expect(cluster.metadata.ownerReferences?.[0]?.name).toBe('late');
    await waitFor('ServiceMonitor', () => tryGet(client, SERVICE_MONITOR, ns, 'late-api'), 15_000);
    await waitFor('kinds available', async () => condition(await getMesh(ns, 'late'), 'OptionalKindsAvailable')?.status === 'True');

    // Play the CNPG operator: report the instances ready.
    await client.mergePatch(`${objectPath(CNPG_CLUSTER, ns, 'late-pg')}/status`, { status: { readyInstances: 2, instances: 2 } });
    await waitFor('DatabaseReady', async () => condition(await getMesh(ns, 'late'), 'DatabaseReady')?.status === 'True');
    // hyphae_operator_mesh_condition follows the mesh's status, one series per status of each condition.
    const series = (type: string, status: string): string => `hyphae_operator_mesh_condition{namespace="${ns}",mesh="late",type="${type}",status="${status}"}`;
    await waitFor('the condition gauge', async () => (await (await fetch(`${op.probeUrl as string}/metrics`)).text()).includes(`${series('DatabaseReady', 'true')} 1`));
    const text = await (await fetch(`${op.probeUrl as string}/metrics`)).text();
    expect(text).toContain(`${series('DatabaseReady', 'false')} 0`);
    expect(text).toContain(`${series('OptionalKindsAvailable', 'true')} 1`);
  });

  it('serves its own /metrics, /healthz and /readyz', async () => {
    const base = op.probeUrl as string;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    const text = await (await fetch(`${base}/metrics`)).text();
    for (const m of ['hyphae_operator_reconciles_total', 'hyphae_operator_reconcile_errors_total', 'hyphae_operator_reconcile_duration_seconds_bucket', 'hyphae_operator_queue_depth']) {
      expect(text).toContain(m);
    }
  });
});

/** A stand-in for an add-on's CRD (CNPG, Prometheus Operator): same group/kind, open schema. */
async function installAddonCrd(client: KubeClient, group: string, kind: string, plural: string): Promise<void> {
  const name = `${plural}.${group}`;
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name },
    spec: {
      group,
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  };
  await client.apply(crd, 'hyphae-tests');
}
