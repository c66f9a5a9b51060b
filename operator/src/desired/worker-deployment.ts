// Embedding workers: `hyphae worker` answering embed requests from the API pods over NATS.
import type { HyphaeMeshSpec } from '../crd/hyphae-mesh-schema.js';
import type { KubeObject } from '../kube/kube-object.js';
import {
  WORKER_PORT,
  compact,
  containerSecurityContext,
  image,
  labels,
  metadata,
  names,
  natsUrl,
  podSecurityContext,
  selectorLabels,
  tmpMount,
  tmpVolume,
} from './common.js';
import { SERVER_UID } from './api-deployment.js';
import type { HyphaeMesh } from './hyphae-mesh.js';

export function workerDeployment(mesh: HyphaeMesh, spec: HyphaeMeshSpec): KubeObject {
  const w = spec.workers;
  const env: Array<Record<string, unknown>> = [
    // Bind all interfaces: the kubelet probes the pod IP (the server defaults to loopback).
    { name: 'HYPHAE_HOST', value: '0.0.0.0' },
    { name: 'HYPHAE_EMBEDDER', value: w.embedder },
  ];
  if (w.model) env.push({ name: 'HYPHAE_EMBED_MODEL', value: w.model });
  if (w.url) env.push({ name: 'HYPHAE_EMBED_URL', value: w.url });
  if (w.apiKeySecret) env.push({ name: 'HYPHAE_EMBED_API_KEY', valueFrom: { secretKeyRef: { name: w.apiKeySecret.name, key: w.apiKeySecret.key } } });
  const probe = (path: string): Record<string, unknown> => ({ httpGet: { path, port: 'http' }, periodSeconds: 10 });
  return compact({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: metadata(mesh, names.worker(mesh), 'worker'),
    spec: {
      replicas: w.replicas,
      selector: { matchLabels: selectorLabels(mesh, 'worker') },
      template: {
        metadata: { labels: labels(mesh, 'worker') },
        spec: {
          automountServiceAccountToken: false,
          securityContext: podSecurityContext(SERVER_UID),
          containers: [
            {
              name: 'worker',
              image: image(spec),
              imagePullPolicy: spec.image.pullPolicy,
              command: ['hyphae', 'worker', '--nats-url', natsUrl(mesh, spec), '--port', String(WORKER_PORT)],
              ports: [{ name: 'http', containerPort: WORKER_PORT, protocol: 'TCP' }],
              env,
              resources: w.resources,
              livenessProbe: probe('/healthz'),
              readinessProbe: probe('/readyz'),
              securityContext: containerSecurityContext(),
              volumeMounts: [tmpMount],
            },
          ],
          volumes: [tmpVolume],
        },
      },
    },
  });
}
