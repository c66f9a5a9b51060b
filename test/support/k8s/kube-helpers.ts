// Test-side helpers against the real API server: install the CRD, make namespaces, poll, and
// stand in for the kubelet/controllers by writing workload status.
import { isNotFound } from '../../../operator/src/errors.js';
import { KubeClient } from '../../../operator/src/kube/kube-client.js';
import type { KubeObject, KubeList } from '../../../operator/src/kube/kube-object.js';
import { CRD, DEPLOYMENT, STATEFUL_SET, collectionPath, objectPath } from '../../../operator/src/kube/resource-types.js';
import type { ResourceType } from '../../../operator/src/kube/resource-types.js';
import { CRD_NAME, hyphaeMeshCrd } from '../../../operator/src/crd/hyphae-mesh-crd.js';
import { KubeConfig } from '@kubernetes/client-node';
import type { ControlPlane } from './control-plane.js';
import { waitFor } from '../wait-for.js';

export function clientFor(cp: ControlPlane, token = cp.token): KubeClient {
  const kc = new KubeConfig();
  kc.loadFromString(cp.kubeconfig.replace(cp.token, token));
  return KubeClient.fromKubeConfig(kc);
}

export async function installCrd(client: KubeClient): Promise<void> {
  await client.apply(hyphaeMeshCrd(), 'hyphae-tests');
  await waitFor('CRD Established', async () => {
    const crd = await client.get<{ status?: { conditions?: Array<{ type: string; status: string }> } }>(objectPath(CRD, undefined, CRD_NAME));
    return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
  });
  // Established precedes the discovery/serving of the new resource by a moment.
  await waitFor('hyphaemeshes served', async () => (await client.get<{ resources: unknown[] }>('/apis/hyphae.dev/v1alpha1')).resources.length > 0);
}

let nsCounter = 0;
/** A fresh namespace per test (no namespace controller runs, so deletion would never finish). */
export async function createNamespace(client: KubeClient, prefix = 'hm'): Promise<string> {
  const name = `${prefix}-${process.pid}-${++nsCounter}`;
  await client.request({ method: 'POST', path: '/api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } });
  return name;
}

export async function list(client: KubeClient, rt: ResourceType, namespace: string): Promise<KubeObject[]> {
  return (await client.get<KubeList<KubeObject>>(collectionPath(rt, namespace))).items;
}

/**
 * The object, or undefined when the server answers 404 Not Found. Any other failure (403, 5xx, a
 * refused connection) throws: an absence check must never pass because the read itself failed.
 */
export async function tryGet(client: KubeClient, rt: ResourceType, namespace: string, name: string): Promise<KubeObject | undefined> {
  try {
    return await client.get<KubeObject>(objectPath(rt, namespace, name));
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/**
 * Play the kubelet and the workload controllers: report every Deployment and StatefulSet in the
 * namespace as fully rolled out at its current generation (optionally with fewer ready).
 */
export async function reportWorkloadsReady(client: KubeClient, namespace: string, readyOverride?: Record<string, number>): Promise<void> {
  for (const rt of [DEPLOYMENT, STATEFUL_SET]) {
    for (const obj of await list(client, rt, namespace)) {
      const replicas = (obj.spec as { replicas?: number }).replicas ?? 1;
      const ready = readyOverride?.[obj.metadata.name] ?? replicas;
      const status: Record<string, unknown> = {
        observedGeneration: obj.metadata.generation,
        replicas,
        readyReplicas: ready,
        updatedReplicas: replicas,
        availableReplicas: ready,
      };
      if (rt === STATEFUL_SET) status.currentReplicas = replicas;
      await client.mergePatch(`${objectPath(rt, namespace, obj.metadata.name)}/status`, { status });
    }
  }
}

/** Sum of apiserver_request_total for write verbs on the given resources, read from the API server itself. */
export async function serverWriteCount(client: KubeClient, resources: readonly string[]): Promise<number> {
  const raw = await client.getText('/metrics');
  let sum = 0;
  for (const line of raw.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const verb = /verb="([A-Z]+)"/.exec(line)?.[1];
    const resource = /resource="([^"]*)"/.exec(line)?.[1];
    if (!verb || !resource || !resources.includes(resource)) continue;
    if (!['APPLY', 'PATCH', 'POST', 'PUT', 'DELETE', 'CREATE', 'UPDATE'].includes(verb)) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}
