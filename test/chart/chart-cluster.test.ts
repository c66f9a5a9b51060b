// The chart against a real kube-apiserver + etcd (the operator tier's control plane): install,
// the operator reconciling with exactly the chart's RBAC (impersonating its ServiceAccount),
// upgrade, server-side validation of every documented value set, and uninstall.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeApiError } from '../../operator/src/errors.js';
import type { KubeClient } from '../../operator/src/kube/kube-client.js';
import type { KubeObject } from '../../operator/src/kube/kube-object.js';
import {
  CONFIG_MAP,
  CRD,
  DEPLOYMENT,
  HPA,
  HYPHAE_MESH,
  LEASE,
  SECRET,
  SERVICE,
  STATEFUL_SET,
  collectionPath,
  objectPath,
} from '../../operator/src/kube/resource-types.js';
import type { ResourceType } from '../../operator/src/kube/resource-types.js';
import type { OperatorHandle } from '../../operator/src/run-operator.js';
import { CRD_NAME } from '../../operator/src/crd/hyphae-mesh-crd.js';
import { k8sSkipReason } from '../support/k8s/assets.js';
import { startControlPlane } from '../support/k8s/control-plane.js';
import type { ControlPlane } from '../support/k8s/control-plane.js';
import { clientFor, list, reportWorkloadsReady, tryGet } from '../support/k8s/kube-helpers.js';
import { waitFor } from '../support/wait-for.js';
import { startTestOperator } from '../support/k8s/operator-harness.js';
import { CHART_DIR, KUBE_VERSION, ciValueFiles, ciValues, helmOk, helmSkipReason, parseManifests, runHelm, valueArgs } from '../support/k8s/helm.js';
import { ResourcePaths, impersonatingClient, serviceAccountUser } from './impersonation.js';
import { operatorObjectsFor } from './operator-desired.js';
import { podSpecOf } from './pod-security.js';

const skip = helmSkipReason() ?? k8sSkipReason();

const RELEASE = 'hyphae';
const NS = 'hyphae-system';
const SA = 'hyphae-operator';
const MESH = 'hyphae';

const t = (group: string, version: string, kind: string, plural: string, namespaced = true): ResourceType => ({ group, version, kind, plural, namespaced });
const SERVICE_ACCOUNT = t('', 'v1', 'ServiceAccount', 'serviceaccounts');
const CLUSTER_ROLE = t('rbac.authorization.k8s.io', 'v1', 'ClusterRole', 'clusterroles', false);
const CLUSTER_ROLE_BINDING = t('rbac.authorization.k8s.io', 'v1', 'ClusterRoleBinding', 'clusterrolebindings', false);
const ROLE = t('rbac.authorization.k8s.io', 'v1', 'Role', 'roles');
const ROLE_BINDING = t('rbac.authorization.k8s.io', 'v1', 'RoleBinding', 'rolebindings');
const NETWORK_POLICY = t('networking.k8s.io', 'v1', 'NetworkPolicy', 'networkpolicies');
const PDB = t('policy', 'v1', 'PodDisruptionBudget', 'poddisruptionbudgets');
const NAMESPACE = t('', 'v1', 'Namespace', 'namespaces', false);
const POD = t('', 'v1', 'Pod', 'pods');

type Mesh = KubeObject & { spec: Record<string, unknown>; status?: { conditions?: Array<{ type: string; status: string }> } };
type Workload = KubeObject & { spec: { replicas?: number; template: { spec: { containers: Array<{ args?: string[]; env?: Array<{ name: string; valueFrom?: unknown }> }> } } } };

async function statusOf(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
    return 200;
  } catch (err) {
    if (err instanceof KubeApiError) return err.status;
    throw err;
  }
}

async function createNamespace(client: KubeClient, name: string): Promise<void> {
  if (await tryGet(client, NAMESPACE, '', name)) return;
  await client.request({ method: 'POST', path: collectionPath(NAMESPACE), body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } });
}

describe.skipIf(skip !== undefined)('helm chart on a real kube-apiserver', () => {
  let cp: ControlPlane;
  let admin: KubeClient;
  let operatorClient: KubeClient | undefined;
  let op: OperatorHandle | undefined;
  const helm = (args: string[]): Promise<string> => helmOk(args, cp.kubeconfigPath);
  const ready = (m: Mesh | undefined): boolean => m?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
  const getMesh = (ns: string, name: string): Promise<Mesh | undefined> => tryGet(admin, HYPHAE_MESH, ns, name) as Promise<Mesh | undefined>;

  beforeAll(async () => {
    cp = await startControlPlane();
    admin = await clientFor(cp);
  });
  afterAll(async () => {
    await op?.stop();
    operatorClient?.close();
    admin?.close();
    await cp?.stop();
  });

  let adminKey: string | undefined;

  it('installs: CRD from crds/, the operator with its RBAC, a HyphaeMesh from values, the admin key Secret and NOTES', async () => {
    const out = await helm(['install', RELEASE, CHART_DIR, '--namespace', NS, '--create-namespace', '--set', 'mesh.enabled=true']);
    expect(out).toContain('STATUS: deployed');
    expect(out).toContain(`kubectl -n ${NS} port-forward service/${MESH}-api 8787:8787`);
    expect(out).toContain(`get secret ${MESH}-admin-key -o jsonpath='{.data.admin-key}' | base64 -d`);
    expect(out).toContain('kubectl apply --server-side');

    const crd = await admin.get<{ status: { conditions: Array<{ type: string; status: string }> } }>(objectPath(CRD, undefined, CRD_NAME));
    expect(crd.status.conditions.some((c) => c.type === 'Established' && c.status === 'True')).toBe(true);
    for (const [rt, name] of [
      [DEPLOYMENT, SA],
      [SERVICE_ACCOUNT, SA],
      [SERVICE, `${SA}-metrics`],
      [CLUSTER_ROLE, SA],
      [CLUSTER_ROLE_BINDING, SA],
      [ROLE, `${SA}-leader-election`],
      [ROLE_BINDING, `${SA}-leader-election`],
      [NETWORK_POLICY, SA],
      [HYPHAE_MESH, MESH],
    ] as const) {
      expect(await tryGet(admin, rt, NS, name), `${rt.kind}/${name}`).toBeDefined();
    }
    const secret = (await tryGet(admin, SECRET, NS, `${MESH}-admin-key`)) as (KubeObject & { data: Record<string, string> }) | undefined;
    adminKey = Buffer.from(secret?.data['admin-key'] ?? '', 'base64').toString();
    expect(adminKey).toMatch(/^hy_[A-Za-z0-9]{40}$/);
  });

  it('lets the operator, as the chart ServiceAccount, reconcile the HyphaeMesh with no request denied', async () => {
    operatorClient = await impersonatingClient(cp, serviceAccountUser(NS, SA));
    op = await startTestOperator(cp, { client: operatorClient, leaderElection: { enabled: true, namespace: NS, retryPeriodMs: 500 } });
    await waitFor('leadership and synced caches', async () => op?.isLeader() && op.controller()?.hasSynced());
    const lease = (await tryGet(admin, LEASE, NS, 'hyphae-operator')) as (KubeObject & { spec: { holderIdentity: string } }) | undefined;
    expect(lease?.spec.holderIdentity).toBe(op.identity);

    const mesh = await getMesh(NS, MESH);
    for (const [rt, name] of [
      [CONFIG_MAP, `${MESH}-config`],
      [SECRET, `${MESH}-postgres`],
      [SERVICE, `${MESH}-postgres`],
      [STATEFUL_SET, `${MESH}-postgres`],
      [SERVICE, `${MESH}-nats`],
      [STATEFUL_SET, `${MESH}-nats`],
      [SERVICE, `${MESH}-api`],
      [DEPLOYMENT, `${MESH}-api`],
      [DEPLOYMENT, `${MESH}-worker`],
      [HPA, `${MESH}-api`],
      [PDB, `${MESH}-api`],
      [PDB, `${MESH}-nats`],
      [NETWORK_POLICY, `${MESH}-api`],
      [NETWORK_POLICY, `${MESH}-worker`],
      [NETWORK_POLICY, `${MESH}-postgres`],
      [NETWORK_POLICY, `${MESH}-nats`],
    ] as const) {
      const obj = await waitFor(`${rt.kind}/${name}`, () => tryGet(admin, rt, NS, name));
      expect(obj.metadata.ownerReferences?.[0]?.uid, `${rt.kind}/${name}`).toBe(mesh?.metadata.uid);
    }
    const api = (await tryGet(admin, DEPLOYMENT, NS, `${MESH}-api`)) as Workload;
    const env = api.spec.template.spec.containers[0]?.env ?? [];
    expect(env.find((e) => e.name === 'HYPHAE_BOOTSTRAP_ADMIN_KEY')?.valueFrom).toEqual({ secretKeyRef: { name: `${MESH}-admin-key`, key: 'admin-key' } });

    await reportWorkloadsReady(admin, NS);
    await waitFor('HyphaeMesh Ready', async () => ready(await getMesh(NS, MESH)));
    const requests = op.client.log.all();
    expect(requests.filter((r) => r.method !== 'GET').length).toBeGreaterThan(0);
    expect(requests.filter((r) => r.status === 401 || r.status === 403)).toEqual([]);
  });

  it('denies the chart ServiceAccount everything its RBAC does not name', async () => {
    // Its own client, so the operator's request log stays free of these refusals.
    const sa = await impersonatingClient(cp, serviceAccountUser(NS, SA));
    // A control: the identity works for what it is granted.
    expect(await statusOf(sa.get(collectionPath(SECRET, NS)))).toBe(200);
    const denied: Array<[string, () => Promise<unknown>]> = [
      ['delete a node', () => sa.request({ method: 'DELETE', path: '/api/v1/nodes/any-node' })],
      ['create a ClusterRole', () => sa.request({ method: 'POST', path: collectionPath(CLUSTER_ROLE), body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'escalate' }, rules: [] } })],
      // It writes its meshes' Patroni Roles and bindings, but can bind nothing it does not hold.
      ['bind cluster-admin', () => sa.request({ method: 'POST', path: collectionPath(ROLE_BINDING, NS), body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'x' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' }, subjects: [] } })],
      ['create a Role granting more than it holds', () => sa.request({ method: 'POST', path: collectionPath(ROLE, NS), body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'x' }, rules: [{ apiGroups: [''], resources: ['pods/exec'], verbs: ['create'] }] } })],
      ['delete pods', () => sa.request({ method: 'DELETE', path: objectPath(POD, NS, 'any') })],
      ['exec-style pod access', () => sa.request({ method: 'POST', path: `/api/v1/namespaces/${NS}/pods/any/exec` })],
      ['change a HyphaeMesh spec', () => sa.mergePatch(objectPath(HYPHAE_MESH, NS, MESH), { spec: { api: { replicas: 9 } } })],
      ['delete a HyphaeMesh', () => sa.request({ method: 'DELETE', path: objectPath(HYPHAE_MESH, NS, MESH) })],
      ['update a Deployment with PUT', () => sa.request({ method: 'PUT', path: objectPath(DEPLOYMENT, NS, `${MESH}-api`), body: {} })],
      ['take another Lease', () => sa.request({ method: 'PUT', path: objectPath(LEASE, NS, 'kube-controller-manager'), body: {} })],
      ['create a Lease in another namespace', () => sa.request({ method: 'POST', path: collectionPath(LEASE, 'default'), body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'hyphae-operator' }, spec: {} } })],
      ['edit the CRD', () => sa.mergePatch(objectPath(CRD, undefined, CRD_NAME), { metadata: { labels: { x: 'y' } } })],
      ['read ServiceAccount tokens', () => sa.request({ method: 'POST', path: `/api/v1/namespaces/${NS}/serviceaccounts/${SA}/token`, body: {} })],
      ['delete namespaces', () => sa.request({ method: 'DELETE', path: objectPath(NAMESPACE, undefined, NS) })],
    ];
    for (const [what, attempt] of denied) expect(await statusOf(attempt()), what).toBe(403);
    sa.close();
  });

  it('rolls helm upgrade through: operator replicas and log level, mesh replicas; the admin key is kept', async () => {
    const before = (await tryGet(admin, DEPLOYMENT, NS, SA)) as Workload;
    const out = await helm([
      'upgrade', RELEASE, CHART_DIR, '--namespace', NS,
      ...valueArgs([], { 'mesh.enabled': true, 'operator.replicas': 2, 'operator.logLevel': 'debug', 'mesh.autoscaling.enabled': false, 'mesh.api.replicas': 4 }),
    ]);
    expect(out).toContain('REVISION: 2');
    const after = (await tryGet(admin, DEPLOYMENT, NS, SA)) as Workload;
    expect(after.metadata.generation).toBeGreaterThan(before.metadata.generation ?? 0);
    expect(after.spec.replicas).toBe(2);
    expect(after.spec.template.spec.containers[0]?.args).toContain('--log-level=debug');
    expect(await tryGet(admin, PDB, NS, SA)).toBeDefined();
    const secret = (await tryGet(admin, SECRET, NS, `${MESH}-admin-key`)) as KubeObject & { data: Record<string, string> };
    expect(Buffer.from(secret.data['admin-key'] ?? '', 'base64').toString()).toBe(adminKey);

    const mesh = await getMesh(NS, MESH);
    expect(mesh?.spec).toMatchObject({ api: { replicas: 4 }, autoscaling: { enabled: false } });
    await waitFor('API Deployment at 4 replicas', async () => ((await tryGet(admin, DEPLOYMENT, NS, `${MESH}-api`)) as Workload | undefined)?.spec.replicas === 4);
    await waitFor('HPA pruned', async () => (await tryGet(admin, HPA, NS, `${MESH}-api`)) === undefined);
    await reportWorkloadsReady(admin, NS);
    await waitFor('HyphaeMesh Ready at the new generation', async () => {
      const m = await getMesh(NS, MESH);
      return ready(m) && (m?.status as { observedGeneration?: number } | undefined)?.observedGeneration === m?.metadata.generation;
    });
    expect(op?.client.log.all().filter((r) => r.status === 403)).toEqual([]);
  });

  it('renders manifests the API server accepts (dryRun=All, strict field validation) for every value set', async () => {
    const validationNs = 'chart-validate';
    await createNamespace(admin, validationNs);
    await createNamespace(admin, 'team-memory');
    const paths = new ResourcePaths(admin);
    const unserved = new Set<string>();
    for (const files of [[], ...ciValueFiles.map((f) => [ciValues(f)])]) {
      const rendered = parseManifests(
        await helm(['template', 'validate', CHART_DIR, '--namespace', validationNs, '--kube-version', KUBE_VERSION, ...valueArgs(files, { 'mesh.enabled': true })]),
      );
      for (const obj of rendered) {
        const path = await paths.collectionPath(obj, validationNs);
        if (!path) {
          unserved.add(obj.kind);
          continue;
        }
        const status = await statusOf(admin.request({ method: 'POST', path, query: { dryRun: 'All', fieldValidation: 'Strict' }, body: obj }));
        expect(status, `${files.join()} ${obj.kind}/${obj.metadata.name}`).toBe(200);
      }
    }
    // Only the Prometheus Operator's kinds are absent from a bare control plane.
    expect([...unserved].sort()).toEqual(['PodMonitor', 'PrometheusRule', 'ServiceMonitor']);

    // What the operator would apply for each value set passes the same validation (add-on kinds aside).
    const validated = new Set<string>();
    for (const files of [[], ...ciValueFiles.map((f) => [ciValues(f)])]) {
      const rendered = parseManifests(
        await helm(['template', 'validate', CHART_DIR, '--namespace', validationNs, '--kube-version', KUBE_VERSION, ...valueArgs(files, { 'mesh.enabled': true })]),
      );
      for (const obj of operatorObjectsFor(rendered, validationNs)) {
        const path = await paths.collectionPath(obj, validationNs);
        if (!path) continue;
        const status = await statusOf(admin.request({ method: 'POST', path, query: { dryRun: 'All', fieldValidation: 'Strict' }, body: obj }));
        expect(status, `operator's ${files.join()} ${obj.kind}/${obj.metadata.name}`).toBe(200);
        validated.add(obj.kind);
      }
    }
    expect([...validated].sort()).toEqual(
      [
        'ConfigMap',
        'CronJob',
        'Deployment',
        'HorizontalPodAutoscaler',
        'Ingress',
        'NetworkPolicy',
        'PersistentVolumeClaim',
        'PodDisruptionBudget',
        'Role',
        'RoleBinding',
        'Secret',
        'Service',
        'ServiceAccount',
        'StatefulSet',
      ].sort(),
    );
    // A dry run creates nothing.
    expect(await tryGet(admin, DEPLOYMENT, validationNs, 'validate-hyphae-operator')).toBeUndefined();

    const dry = await runHelm(['install', 'validate', CHART_DIR, '--namespace', validationNs, '--dry-run=server', '-f', ciValues('mesh-managed-values.yaml')], cp.kubeconfigPath);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('STATUS: pending-install');
  });

  it("passes the API server's own PodSecurity admission at enforce=restricted: the chart's pods and the operator's", async () => {
    const pssNs = 'pss-restricted';
    await admin.request({
      method: 'POST',
      path: collectionPath(NAMESPACE),
      body: {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: pssNs, labels: { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'latest' } },
      },
    });
    // The control: a pod without the restricted settings is refused in this namespace.
    const plain = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'plain' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } };
    expect(await statusOf(admin.request({ method: 'POST', path: collectionPath(POD, pssNs), query: { dryRun: 'All' }, body: plain }))).toBe(403);

    let checked = 0;
    for (const files of [[], ...ciValueFiles.map((f) => [ciValues(f)])]) {
      const rendered = parseManifests(await helm(['template', 'pss', CHART_DIR, '--namespace', pssNs, '--kube-version', KUBE_VERSION, ...valueArgs(files, { 'mesh.enabled': true })]));
      for (const obj of [...rendered, ...operatorObjectsFor(rendered, pssNs)]) {
        const pod = podSpecOf(obj);
        if (!pod) continue;
        // As the StatefulSet controller does: claim templates become PersistentVolumeClaim volumes.
        const claims = ((obj.spec as { volumeClaimTemplates?: Array<{ metadata: { name: string } }> }).volumeClaimTemplates ?? []).map((c) => ({
          name: c.metadata.name,
          persistentVolumeClaim: { claimName: `${c.metadata.name}-${obj.metadata.name}-0` },
        }));
        const spec = { ...pod, volumes: [...(pod.volumes ?? []), ...claims] };
        const body = { apiVersion: 'v1', kind: 'Pod', metadata: { name: `${obj.metadata.name}-${checked}` }, spec };
        const status = await statusOf(admin.request({ method: 'POST', path: collectionPath(POD, pssNs), query: { dryRun: 'All' }, body }));
        expect(status, `${files.join()} ${obj.kind}/${obj.metadata.name}`).toBe(200);
        checked++;
      }
    }
    // Per value set: the operator Deployment, plus API, workers and (when managed) PostgreSQL and NATS.
    expect(checked).toBeGreaterThanOrEqual(5 * 3);
  });

  it('uninstalls everything it installed except the CRD and the kept admin key Secret', async () => {
    await op?.stop();
    op = undefined;
    const out = await helm(['uninstall', RELEASE, '--namespace', NS]);
    expect(out).toContain(`release "${RELEASE}" uninstalled`);
    for (const [rt, name] of [
      [DEPLOYMENT, SA],
      [SERVICE_ACCOUNT, SA],
      [SERVICE, `${SA}-metrics`],
      [CLUSTER_ROLE, SA],
      [CLUSTER_ROLE_BINDING, SA],
      [ROLE, `${SA}-leader-election`],
      [ROLE_BINDING, `${SA}-leader-election`],
      [NETWORK_POLICY, SA],
      [PDB, SA],
      [HYPHAE_MESH, MESH],
    ] as const) {
      await waitFor(`${rt.kind}/${name} removed`, async () => (await tryGet(admin, rt, NS, name)) === undefined);
    }
    expect(await tryGet(admin, CRD, '', CRD_NAME)).toBeDefined();
    expect(await tryGet(admin, SECRET, NS, `${MESH}-admin-key`)).toBeDefined();
    expect((await helm(['list', '--namespace', NS, '--short'])).trim()).toBe('');
  });

  it('scopes the operator to one namespace with watchNamespace: a Role there, nothing elsewhere', async () => {
    const opNs = 'scoped-operator';
    const watched = 'team-a';
    await createNamespace(admin, watched);
    await helm(['install', 'scoped', CHART_DIR, '--namespace', opNs, '--create-namespace', '--set', `operator.watchNamespace=${watched}`]);
    expect(await tryGet(admin, CLUSTER_ROLE, '', 'scoped-hyphae-operator')).toBeUndefined();
    expect(await tryGet(admin, ROLE, watched, 'scoped-hyphae-operator')).toBeDefined();

    const sa = await impersonatingClient(cp, serviceAccountUser(opNs, 'scoped-hyphae-operator'));
    const scoped = await startTestOperator(cp, { client: sa, namespace: watched, leaderElection: { enabled: true, namespace: opNs, retryPeriodMs: 500 } });
    try {
      await waitFor('scoped operator synced', async () => scoped.isLeader() && scoped.controller()?.hasSynced());
      await admin.request({ method: 'POST', path: collectionPath(HYPHAE_MESH, watched), body: { apiVersion: 'hyphae.dev/v1alpha1', kind: 'HyphaeMesh', metadata: { name: 'demo' }, spec: {} } });
      // Every workload first (API and worker Deployments, PostgreSQL and NATS StatefulSets): under
      // load the operator applies them one by one, and a status reported before one exists never is.
      await waitFor('the workloads in the watched namespace', async () => (await list(admin, DEPLOYMENT, watched)).length === 2 && (await list(admin, STATEFUL_SET, watched)).length === 2);
      await reportWorkloadsReady(admin, watched);
      await waitFor('scoped mesh Ready', async () => ready(await getMesh(watched, 'demo')));
      expect(scoped.client.log.all().filter((r) => r.status === 403)).toEqual([]);
      expect(await statusOf(sa.get(collectionPath(SECRET, watched)))).toBe(200);
      expect(await statusOf(sa.get(collectionPath(SECRET, 'default')))).toBe(403);
      expect(await statusOf(sa.get(collectionPath(SECRET)))).toBe(403);
    } finally {
      await scoped.stop();
      sa.close();
    }
  });
});
