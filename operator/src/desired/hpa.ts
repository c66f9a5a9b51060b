// HorizontalPodAutoscaler for the API Deployment (autoscaling.enabled).
import type { HyphaeMeshSpec } from '../crd/hyphae-mesh-schema.js';
import type { KubeObject } from '../kube/kube-object.js';
import { metadata, names } from './common.js';
import type { HyphaeMesh } from './hyphae-mesh.js';

export function apiHpa(mesh: HyphaeMesh, spec: HyphaeMeshSpec): KubeObject {
  const a = spec.autoscaling;
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: metadata(mesh, names.api(mesh), 'api'),
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: names.api(mesh) },
      minReplicas: a.minReplicas,
      maxReplicas: a.maxReplicas,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: a.targetCPUUtilizationPercentage } } }],
    },
  };
}
