// ClusterIP Service in front of the API pods; the Ingress and ServiceMonitor target its `http` port,
// gRPC clients (and the Ingress's grpcHost) its `grpc` port, marked h2c for controllers that read appProtocol.
import type { HyphaeMeshSpec } from '../crd/hyphae-mesh-schema.js';
import type { KubeObject } from '../kube/kube-object.js';
import { metadata, names, selectorLabels } from './common.js';
import type { HyphaeMesh } from './hyphae-mesh.js';

export function apiService(mesh: HyphaeMesh, spec: HyphaeMeshSpec): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: metadata(mesh, names.api(mesh), 'api'),
    spec: {
      type: 'ClusterIP',
      selector: selectorLabels(mesh, 'api'),
      ports: [
        { name: 'http', port: spec.api.port, targetPort: 'http', protocol: 'TCP' },
        ...(spec.api.grpcPort > 0 ? [{ name: 'grpc', port: spec.api.grpcPort, targetPort: 'grpc', protocol: 'TCP', appProtocol: 'kubernetes.io/h2c' }] : []),
      ],
    },
  };
}
