// The operator running as an identity that holds only operatorClusterRules() and
// operatorLeaseRules(): proves the least-privilege RBAC (what the chart installs) is sufficient.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeApiError } from '../../operator/src/errors.js';
import type { KubeClient } from '../../operator/src/kube/kube-client.js';
import {
  CRON_JOB,
  DEPLOYMENT,
  HYPHAE_MESH,
  NETWORK_POLICY,
  PDB,
  PVC,
  ROLE,
  ROLE_BINDING,
  SERVICE_ACCOUNT,
  STATEFUL_SET,
  collectionPath,
  objectPath,
} from '../../operator/src/kube/resource-types.js';
import type { ResourceType } from '../../operator/src/kube/resource-types.js';
import { operatorClusterRules, operatorLeaseRules } from '../../operator/src/rbac.js';
import type { OperatorHandle } from '../../operator/src/run-operator.js';
import { k8sSkipReason } from '../support/k8s/assets.js';
import { startControlPlane } from '../support/k8s/control-plane.js';
import type { ControlPlane } from '../support/k8s/control-plane.js';
import { clientFor, createNamespace, installCrd, reportWorkloadsReady, tryGet } from '../support/k8s/kube-helpers.js';
import { waitFor } from '../support/wait-for.js';
import { startTestOperator } from '../support/k8s/operator-harness.js';

const skip = k8sSkipReason();
const USER = 'hyphae-operator';
const REPLICA_SET: ResourceType = { group: 'apps', version: 'v1', kind: 'ReplicaSet', plural: 'replicasets', namespaced: true };

describe.skipIf(skip !== undefined)('operator under least-privilege RBAC', () => {
  let cp: ControlPlane;
  let admin: KubeClient;
  let restricted: KubeClient;
  let op: OperatorHandle | undefined;

  beforeAll(async () => {
    cp = await startControlPlane({ users: [USER] });
    admin = clientFor(cp);
    restricted = clientFor(cp, cp.userTokens[USER]);
    await installCrd(admin);
    const post = (path: string, body: unknown): Promise<unknown> => admin.request({ method: 'POST', path, body });
    const subjects = [{ kind: 'User', name: USER, apiGroup: 'rbac.authorization.k8s.io' }];
    await post('/apis/rbac.authorization.k8s.io/v1/clusterroles', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: USER }, rules: operatorClusterRules() });
    await post('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: USER },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: USER },
      subjects,
    });
    await post('/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: `${USER}-lease` }, rules: operatorLeaseRules() });
    await post('/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: `${USER}-lease` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `${USER}-lease` },
      subjects,
    });
  });
  afterAll(async () => {
    await op?.stop();
    admin?.close();
    restricted?.close();
    await cp?.stop();
  });

  it('is really restricted (cannot list ReplicaSets)', async () => {
    await expect(restricted.get('/apis/apps/v1/replicasets')).rejects.toSatisfy((e: unknown) => e instanceof KubeApiError && e.status === 403);
  });

  it("the tests' absence check (tryGet) reads 404 as absent but a 403 as a failure", async () => {
    const ns = await createNamespace(admin, 'absent');
    expect(await tryGet(admin, DEPLOYMENT, ns, 'nothing-here')).toBeUndefined();
    // ReplicaSets are outside the operator's rules: a forbidden read must not look like "absent".
    await expect(tryGet(restricted, REPLICA_SET, ns, 'nothing-here')).rejects.toSatisfy((e: unknown) => e instanceof KubeApiError && e.status === 403);
  });

  it('reconciles to Ready with leader election, using only its rules', async () => {
    const kubeconfig = cp.kubeconfig.replace(cp.token, cp.userTokens[USER] as string);
    op = await startTestOperator({ ...cp, kubeconfig }, { leaderElection: { namespace: 'default', identity: 'rbac-op', retryPeriodMs: 200 } });
    await waitFor('leader and synced', async () => op?.isLeader() && op.controller()?.hasSynced());
    const ns = await createNamespace(admin, 'rbac');
    await admin.request({
      method: 'POST',
      path: collectionPath(HYPHAE_MESH, ns),
      body: { apiVersion: 'hyphae.dev/v1alpha1', kind: 'HyphaeMesh', metadata: { name: 'm' }, spec: {} },
    });
    await waitFor('workloads', async () => (await tryGet(admin, DEPLOYMENT, ns, 'm-worker')) && (await tryGet(admin, STATEFUL_SET, ns, 'm-nats')));
    for (const [rt, name] of [[PDB, 'm-api'], [PDB, 'm-nats'], [NETWORK_POLICY, 'm-postgres'], [NETWORK_POLICY, 'm-nats']] as const) {
      const obj = await waitFor(`${rt.kind}/${name}`, () => tryGet(admin, rt, ns, name));
      expect(obj.metadata.ownerReferences?.[0]?.name, `${rt.kind}/${name}`).toBe('m');
    }
    await reportWorkloadsReady(admin, ns);
    await waitFor('Ready', async () => {
      const m = await admin.get<{ status?: { conditions?: Array<{ type: string; status: string }> } }>(objectPath(HYPHAE_MESH, ns, 'm'));
      return m.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
    });
    const forbidden = op.client.log.all().filter((r) => r.status === 403);
    expect(forbidden).toEqual([]);
  });

  it("grants each mesh's Patroni its Role and runs backups, using only its rules", async () => {
    const ns = await createNamespace(admin, 'rbac-ha');
    await admin.request({
      method: 'POST',
      path: collectionPath(HYPHAE_MESH, ns),
      body: { apiVersion: 'hyphae.dev/v1alpha1', kind: 'HyphaeMesh', metadata: { name: 'h' }, spec: { postgres: { instances: 3, backup: { enabled: true } } } },
    });
    // Kubernetes lets the operator create this Role only because it holds every permission in it.
    const role = await waitFor('Role', () => tryGet(admin, ROLE, ns, 'h-patroni'));
    expect((role as unknown as { rules: unknown[] }).rules).toHaveLength(2);
    for (const [rt, name] of [[ROLE_BINDING, 'h-patroni'], [SERVICE_ACCOUNT, 'h-patroni'], [CRON_JOB, 'h-postgres-backup'], [PVC, 'h-postgres-backup'], [STATEFUL_SET, 'h-postgres']] as const) {
      await waitFor(`${rt.kind}/${name}`, () => tryGet(admin, rt, ns, name));
    }
    const forbidden = op?.client.log.all().filter((r) => r.status === 403);
    expect(forbidden).toEqual([]);
  });
});
