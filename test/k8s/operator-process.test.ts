// The real `hyphae operator` executable (node bin/hyphae.js operator, as the image's pods run it)
// against a real kube-apiserver + etcd: it takes the Lease, reconciles a HyphaeMesh into its
// objects, and on SIGTERM releases the Lease and exits 0.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeClient } from '../../operator/src/kube/kube-client.js';
import { CONFIG_MAP, DEPLOYMENT, HYPHAE_MESH, collectionPath } from '../../operator/src/kube/resource-types.js';
import { cliEnv, startHyphae } from '../support/cli-process.js';
import type { RunningServer } from '../support/cli-process.js';
import { k8sSkipReason } from '../support/k8s/assets.js';
import { startControlPlane } from '../support/k8s/control-plane.js';
import type { ControlPlane } from '../support/k8s/control-plane.js';
import { clientFor, createNamespace, installCrd, tryGet } from '../support/k8s/kube-helpers.js';
import { waitFor } from '../support/wait-for.js';

const skip = k8sSkipReason();

interface Lease {
  spec: { holderIdentity?: string };
}

describe.skipIf(skip !== undefined)('the hyphae operator executable on a real kube-apiserver', { timeout: 240_000 }, () => {
  let cp: ControlPlane;
  let client: KubeClient;
  let operator: RunningServer | undefined;

  beforeAll(async () => {
    cp = await startControlPlane();
    client = clientFor(cp);
    await installCrd(client);
  });
  afterAll(async () => {
    await operator?.stop();
    client?.close();
    await cp?.stop();
  });

  it('leads, reconciles a HyphaeMesh into its objects, and on SIGTERM releases the Lease and exits 0', async () => {
    const ns = await createNamespace(client, 'opproc');
    await client.request({ method: 'POST', path: collectionPath(HYPHAE_MESH, ns), body: { apiVersion: 'hyphae.dev/v1alpha1', kind: 'HyphaeMesh', metadata: { name: 'demo' }, spec: {} } });
    operator = await startHyphae(
      ['operator', '--kubeconfig', cp.kubeconfigPath, '--probe-port', '0', '--probe-host', '127.0.0.1', '--lease-namespace', ns, '--log-level', 'info'],
      cliEnv(),
      /"msg":"operator started".*"probes":"(http:\/\/[^"]+)"/,
    );
    const identity = /"msg":"operator started","identity":"([^"]+)"/.exec(operator.stderr())?.[1];
    expect(identity, operator.stderr()).toBeTruthy();

    const leasePath = `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/hyphae-operator`;
    await waitFor('the operator holds the Lease', async () => (await client.get<Lease>(leasePath)).spec.holderIdentity === identity, 60_000);
    await waitFor('demo-api Deployment and demo-config ConfigMap', async () => (await tryGet(client, DEPLOYMENT, ns, 'demo-api')) && (await tryGet(client, CONFIG_MAP, ns, 'demo-config')), 60_000);
    await waitFor('the mesh reports status conditions', async () => {
      const mesh = await client.get<{ status?: { conditions?: unknown[] } }>(`${collectionPath(HYPHAE_MESH, ns)}/demo`);
      return (mesh.status?.conditions?.length ?? 0) > 0;
    }, 60_000);
    expect((await fetch(`${operator.url}/healthz`)).status).toBe(200);

    const running = operator;
    operator = undefined;
    expect(await running.stop()).toBe(0);
    expect(running.stderr()).toMatch(/"msg":"operator stopped"/);
    expect((await client.get<Lease>(leasePath)).spec.holderIdentity ?? '').toBe('');
    await expect(fetch(`${running.url}/healthz`)).rejects.toThrow();
  });
});
