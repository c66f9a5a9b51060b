// ConfigMap with the server settings API pods share; its hash rolls the pods when it changes.
import type { HyphaeMeshSpec } from '../crd/hyphae-mesh-schema.js';
import type { KubeObject } from '../kube/kube-object.js';
import { metadata, names, natsUrl } from './common.js';
import type { HyphaeMesh } from './hyphae-mesh.js';

export function configMap(mesh: HyphaeMesh, spec: HyphaeMeshSpec): KubeObject {
  const data: Record<string, string> = {
    HYPHAE_HOST: '0.0.0.0',
    HYPHAE_PORT: String(spec.api.port),
    // API pods never embed locally: embedding is the workers' job, reached over NATS.
    HYPHAE_EMBEDDER: 'nats',
    HYPHAE_NATS_URL: natsUrl(mesh, spec),
  };
  if (spec.ingress.enabled && spec.ingress.host) {
    const svc = names.api(mesh);
    const ns = mesh.metadata.namespace;
    data.HYPHAE_ALLOWED_HOSTS = [spec.ingress.host, svc, `${svc}.${ns}`, `${svc}.${ns}.svc`].join(',');
  }
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: metadata(mesh, names.config(mesh), 'config'), data };
}
