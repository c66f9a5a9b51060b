// Which optional kinds (add-on CRDs) the API server serves. A missing kind becomes a condition on
// the HyphaeMesh, never a crash, and is picked up without restart once its CRD is installed.
import { KubeApiError } from '../errors.js';
import type { KubeClient } from '../kube/kube-client.js';
import type { ResourceType } from '../kube/resource-types.js';
import { OPTIONAL_TYPES, groupVersionPath, typeKey } from '../kube/resource-types.js';

interface ApiResourceList {
  resources: Array<{ name: string; kind: string }>;
}

export async function discoverOptionalKinds(client: KubeClient, types: readonly ResourceType[] = OPTIONAL_TYPES): Promise<Set<string>> {
  const available = new Set<string>();
  for (const rt of types) {
    try {
      const list = await client.get<ApiResourceList>(groupVersionPath(rt));
      if (list.resources.some((r) => r.name === rt.plural)) available.add(typeKey(rt));
    } catch (err) {
      if (!(err instanceof KubeApiError && err.status === 404)) throw err;
    }
  }
  return available;
}
