// Prometheus Operator ServiceMonitor scraping the API pods' /metrics.
import type { HyphaeMeshSpec } from '../crd/hyphae-mesh-schema.js';
import type { KubeObject } from '../kube/kube-object.js';
import { metadata, names, selectorLabels } from './common.js';
import type { HyphaeMesh } from './hyphae-mesh.js';

export function serviceMonitor(mesh: HyphaeMesh, spec: HyphaeMeshSpec): KubeObject {
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'ServiceMonitor',
    metadata: metadata(mesh, names.api(mesh), 'api'),
    spec: {
      selector: { matchLabels: selectorLabels(mesh, 'api') },
      namespaceSelector: { matchNames: [mesh.metadata.namespace] },
      endpoints: [{ port: 'http', path: '/metrics', interval: spec.monitoring.serviceMonitor.interval }],
    },
  };
}
