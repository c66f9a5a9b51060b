// Managed NATS: a clustered StatefulSet (routes over a headless Service) and a client Service.
import type { HyphaeMeshSpec } from '../crd/hyphae-mesh-schema.js';
import type { KubeObject } from '../kube/kube-object.js';
import {
  NATS_CLIENT_PORT,
  NATS_CLUSTER_PORT,
  NATS_MONITOR_PORT,
  compact,
  containerSecurityContext,
  labels,
  metadata,
  names,
  podSecurityContext,
  selectorLabels,
  tmpMount,
  tmpVolume,
} from './common.js';
import type { HyphaeMesh } from './hyphae-mesh.js';

export const NATS_UID = 1000;

export function natsRoutes(mesh: HyphaeMesh, replicas: number): string {
  const host = (i: number): string => `${names.nats(mesh)}-${i}.${names.natsCluster(mesh)}.${mesh.metadata.namespace}.svc`;
  return Array.from({ length: replicas }, (_, i) => `nats://${host(i)}:${NATS_CLUSTER_PORT}`).join(',');
}

export function natsStatefulSet(mesh: HyphaeMesh, spec: HyphaeMeshSpec): KubeObject {
  const n = spec.nats.replicas;
  const args = ['--name=$(POD_NAME)', `--port=${NATS_CLIENT_PORT}`, `--http_port=${NATS_MONITOR_PORT}`];
  if (n > 1) args.push(`--cluster_name=${mesh.metadata.name}`, `--cluster=nats://0.0.0.0:${NATS_CLUSTER_PORT}`, `--routes=${natsRoutes(mesh, n)}`);
  return compact({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: metadata(mesh, names.nats(mesh), 'nats'),
    spec: {
      replicas: n,
      serviceName: names.natsCluster(mesh),
      // Peers must all start to form the cluster; ordered start would wait on readiness for nothing.
      podManagementPolicy: 'Parallel',
      selector: { matchLabels: selectorLabels(mesh, 'nats') },
      template: {
        metadata: { labels: labels(mesh, 'nats') },
        spec: {
          automountServiceAccountToken: false,
          securityContext: podSecurityContext(NATS_UID),
          containers: [
            {
              name: 'nats',
              image: spec.nats.image,
              imagePullPolicy: spec.image.pullPolicy,
              args,
              env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
              ports: [
                { name: 'client', containerPort: NATS_CLIENT_PORT, protocol: 'TCP' },
                { name: 'cluster', containerPort: NATS_CLUSTER_PORT, protocol: 'TCP' },
                { name: 'monitor', containerPort: NATS_MONITOR_PORT, protocol: 'TCP' },
              ],
              resources: spec.nats.resources,
              livenessProbe: { httpGet: { path: '/healthz?js-enabled-only=true', port: 'monitor' }, periodSeconds: 10 },
              readinessProbe: { httpGet: { path: '/healthz', port: 'monitor' }, periodSeconds: 5 },
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

export function natsClientService(mesh: HyphaeMesh): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: metadata(mesh, names.nats(mesh), 'nats'),
    spec: {
      type: 'ClusterIP',
      selector: selectorLabels(mesh, 'nats'),
      ports: [{ name: 'client', port: NATS_CLIENT_PORT, targetPort: 'client', protocol: 'TCP' }],
    },
  };
}

export function natsClusterService(mesh: HyphaeMesh): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: metadata(mesh, names.natsCluster(mesh), 'nats'),
    spec: {
      clusterIP: 'None',
      // Routes must resolve before peers are ready, or the cluster can never form.
      publishNotReadyAddresses: true,
      selector: selectorLabels(mesh, 'nats'),
      ports: [
        { name: 'client', port: NATS_CLIENT_PORT, targetPort: 'client', protocol: 'TCP' },
        { name: 'cluster', port: NATS_CLUSTER_PORT, targetPort: 'cluster', protocol: 'TCP' },
      ],
    },
  };
}
