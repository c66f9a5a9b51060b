// Clients and discovery for chart tests on the real API server: a client that acts as the
// chart's ServiceAccount (impersonation, as `kubectl --as` does), and REST paths for rendered
// objects found through API discovery.
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../../operator/src/kube/kube-client.js';
import { isNotFound } from '../../operator/src/errors.js';
import type { ControlPlane } from '../support/k8s/control-plane.js';
import type { RenderedObject } from '../support/k8s/helm.js';

export function serviceAccountUser(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/** A client authenticated as the test admin but authorised as `user` (Impersonate-User). */
export async function impersonatingClient(cp: ControlPlane, user: string): Promise<KubeClient> {
  const config = JSON.parse(cp.kubeconfig) as { users: Array<{ user: Record<string, unknown> }> };
  for (const u of config.users) u.user.as = user;
  const kc = new KubeConfig();
  kc.loadFromString(JSON.stringify(config));
  return KubeClient.fromKubeConfig(kc);
}

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
}

/** Collection paths of rendered objects, via discovery; undefined for kinds the server does not serve. */
export class ResourcePaths {
  private readonly lists = new Map<string, ApiResource[] | undefined>();
  constructor(private readonly client: KubeClient) {}

  async collectionPath(obj: RenderedObject, namespace: string): Promise<string | undefined> {
    const base = obj.apiVersion.includes('/') ? `/apis/${obj.apiVersion}` : `/api/${obj.apiVersion}`;
    if (!this.lists.has(base)) {
      try {
        this.lists.set(base, (await this.client.get<{ resources: ApiResource[] }>(base)).resources);
      } catch (err) {
        if (!isNotFound(err)) throw err;
        this.lists.set(base, undefined);
      }
    }
    const resource = this.lists.get(base)?.find((r) => r.kind === obj.kind && !r.name.includes('/'));
    if (!resource) return undefined;
    const ns = obj.metadata.namespace ?? namespace;
    return resource.namespaced ? `${base}/namespaces/${ns}/${resource.name}` : `${base}/${resource.name}`;
  }
}
