// The API Deployment: `hyphae serve` behind probes, with `hyphae migrate` as an initContainer.
import type { HyphaeMeshSpec } from '../crd/hyphae-mesh-schema.js';
import type { KubeObject } from '../kube/kube-object.js';
import {
  CONFIG_HASH_ANNOTATION,
  compact,
  containerSecurityContext,
  databaseUrlRef,
  image,
  labels,
  metadata,
  names,
  podSecurityContext,
  selectorLabels,
  stableHash,
  tmpMount,
  tmpVolume,
} from './common.js';
import type { HyphaeMesh } from './hyphae-mesh.js';

/** uid/gid of the Hyphae image (Dockerfile `USER 65532:65532`); also the pods' fsGroup. */
export const SERVER_UID = 65532;

export function serverEnv(mesh: HyphaeMesh, spec: HyphaeMeshSpec): Array<Record<string, unknown>> {
  const env: Array<Record<string, unknown>> = [
    { name: 'HYPHAE_DATABASE_URL', valueFrom: { secretKeyRef: databaseUrlRef(mesh, spec) } },
  ];
  const admin = spec.auth.bootstrapAdminKeySecret;
  if (admin) env.push({ name: 'HYPHAE_BOOTSTRAP_ADMIN_KEY', valueFrom: { secretKeyRef: { name: admin.name, key: admin.key } } });
  const linkSecret = spec.mcp.linkSecret;
  if (linkSecret) env.push({ name: 'HYPHAE_HYDRADB_LINK_SECRET', valueFrom: { secretKeyRef: { name: linkSecret.name, key: linkSecret.key } } });
  const introspection = spec.oauth?.introspectionSecret;
  if (introspection) {
    env.push(
      { name: 'HYPHAE_OAUTH_INTROSPECTION_CLIENT_ID', valueFrom: { secretKeyRef: { name: introspection.name, key: introspection.clientIdKey } } },
      { name: 'HYPHAE_OAUTH_INTROSPECTION_CLIENT_SECRET', valueFrom: { secretKeyRef: { name: introspection.name, key: introspection.clientSecretKey } } },
    );
  }
  return env;
}

export function apiDeployment(mesh: HyphaeMesh, spec: HyphaeMeshSpec, configData: Record<string, string>): KubeObject {
  // User entries win; a duplicate name would make the server-side apply fail (env is a map by name).
  const userEnv = spec.api.env ?? [];
  const env = [...serverEnv(mesh, spec).filter((e) => !userEnv.some((u) => u.name === e.name)), ...userEnv];
  const envFrom = [{ configMapRef: { name: names.config(mesh) } }];
  const probe = (path: string, period: number, failures: number): Record<string, unknown> => ({
    httpGet: { path, port: 'http' },
    periodSeconds: period,
    failureThreshold: failures,
  });
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: metadata(mesh, names.api(mesh), 'api'),
    spec: {
      // With autoscaling the HPA owns the replica count: leaving it out of the apply lets it.
      replicas: spec.autoscaling.enabled ? undefined : spec.api.replicas,
      selector: { matchLabels: selectorLabels(mesh, 'api') },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      template: {
        metadata: {
          labels: labels(mesh, 'api'),
          annotations: { [CONFIG_HASH_ANNOTATION]: stableHash(configData) },
        },
        spec: {
          automountServiceAccountToken: false,
          securityContext: podSecurityContext(SERVER_UID),
          initContainers: [
            {
              name: 'migrate',
              image: image(spec),
              imagePullPolicy: spec.image.pullPolicy,
              command: ['hyphae', 'migrate'],
              env,
              envFrom,
              // The API's own: an init container's requests never add to the pod's, only its max.
              resources: spec.api.resources,
              securityContext: containerSecurityContext(),
              volumeMounts: [tmpMount],
            },
          ],
          containers: [
            {
              name: 'api',
              image: image(spec),
              imagePullPolicy: spec.image.pullPolicy,
              command: ['hyphae', 'serve'],
              // Probes stay on http: /healthz and /readyz are the process's health, gRPC included.
              ports: [
                { name: 'http', containerPort: spec.api.port, protocol: 'TCP' },
                ...(spec.api.grpcPort > 0 ? [{ name: 'grpc', containerPort: spec.api.grpcPort, protocol: 'TCP' }] : []),
              ],
              env,
              envFrom,
              resources: spec.api.resources,
              livenessProbe: probe('/healthz', 10, 3),
              readinessProbe: probe('/readyz', 5, 2),
              securityContext: containerSecurityContext(),
              volumeMounts: [tmpMount],
            },
          ],
          volumes: [tmpVolume],
        },
      },
    },
  };
  return compact(deployment);
}
