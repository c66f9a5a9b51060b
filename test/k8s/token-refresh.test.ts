// The operator's credentials rotate under it, as in a pod: its bearer token comes from a token
// FILE (the kubelet rewrites a projected service-account token before it expires). The test
// rewrites the file with a second token and revokes the first (both are real TokenRequest tokens
// bound to a Secret; deleting the Secret invalidates its token), and the operator must go on
// reconciling with the new one. client-node re-reads the file at most a minute after it last did.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from '../../operator/src/kube/kube-client.js';
import { DEPLOYMENT, HYPHAE_MESH, collectionPath } from '../../operator/src/kube/resource-types.js';
import type { OperatorHandle } from '../../operator/src/run-operator.js';
import { k8sSkipReason } from '../support/k8s/assets.js';
import { getStatus, startControlPlane } from '../support/k8s/control-plane.js';
import type { ControlPlane } from '../support/k8s/control-plane.js';
import { clientFor, createNamespace, installCrd, tryGet } from '../support/k8s/kube-helpers.js';
import { waitFor } from '../support/wait-for.js';
import { startTestOperator } from '../support/k8s/operator-harness.js';

const skip = k8sSkipReason();
const ACCOUNT = 'hyphae-operator';

describe.skipIf(skip !== undefined)('operator credentials from a rotating token file', { timeout: 300_000 }, () => {
  let cp: ControlPlane;
  let admin: KubeClient;
  let ns: string;
  let op: OperatorHandle | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'hyphae-token-'));
  const tokenFile = join(dir, 'token');

  beforeAll(async () => {
    cp = await startControlPlane();
    admin = clientFor(cp);
    await installCrd(admin);
    ns = await createNamespace(admin, 'tok');
    await admin.request({ method: 'POST', path: `/api/v1/namespaces/${ns}/serviceaccounts`, body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: ACCOUNT } } });
    await admin.request({
      method: 'POST',
      path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: `${ACCOUNT}-${ns}` },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ kind: 'ServiceAccount', name: ACCOUNT, namespace: ns }],
      },
    });
  });
  afterAll(async () => {
    await op?.stop();
    admin?.close();
    await cp?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const createMesh = (name: string): Promise<unknown> =>
    admin.request({ method: 'POST', path: collectionPath(HYPHAE_MESH, ns), body: { apiVersion: 'hyphae.dev/v1alpha1', kind: 'HyphaeMesh', metadata: { name }, spec: {} } });

  it('keeps reconciling after the token file is rewritten and the old token revoked', async () => {
    const first = await boundToken(admin, ns, 'token-first');
    const second = await boundToken(admin, ns, 'token-second');
    writeFileSync(tokenFile, first);
    op = await startTestOperator(cp, { client: KubeClient.fromKubeConfig(inClusterConfig(cp, tokenFile)), leaderElection: { enabled: false }, resyncMs: 1000 });
    await waitFor('controller synced', async () => op?.controller()?.hasSynced());
    await createMesh('before');
    await waitFor('before-api with the first token', () => tryGet(admin, DEPLOYMENT, ns, 'before-api'));

    writeFileSync(tokenFile, second);
    await admin.request({ method: 'DELETE', path: `/api/v1/namespaces/${ns}/secrets/token-first` });
    await waitFor('the first token revoked', async () => (await getStatus(`${cp.server}/api/v1/namespaces/${ns}`, first)) === 401);
    expect(await getStatus(`${cp.server}/api/v1/namespaces/${ns}`, second)).toBe(200);

    await createMesh('after');
    await waitFor('after-api with the second token', () => tryGet(admin, DEPLOYMENT, ns, 'after-api'), 180_000);
  });
});

/** A client-node config shaped as its in-cluster one: CA verified, the token read from a file. */
function inClusterConfig(cp: ControlPlane, file: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromClusterAndUser(
    { name: 'inCluster', server: cp.server, caFile: cp.caFile, skipTLSVerify: false },
    { name: 'inClusterUser', authProvider: { name: 'tokenFile', config: { tokenFile: file } } },
  );
  return kc;
}

/** A TokenRequest token of the operator's ServiceAccount, bound to a new Secret: deleting the Secret revokes it. */
async function boundToken(admin: KubeClient, namespace: string, secret: string): Promise<string> {
  const bound = await admin.request<{ metadata: { uid: string } }>({
    method: 'POST',
    path: `/api/v1/namespaces/${namespace}/secrets`,
    body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: secret }, type: 'Opaque' },
  });
  const review = await admin.request<{ status: { token: string } }>({
    method: 'POST',
    path: `/api/v1/namespaces/${namespace}/serviceaccounts/${ACCOUNT}/token`,
    body: {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: 3600, boundObjectRef: { apiVersion: 'v1', kind: 'Secret', name: secret, uid: bound.metadata.uid } },
    },
  });
  return review.status.token;
}
