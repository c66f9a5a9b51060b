// Managed PostgreSQL: one pgvector instance in a StatefulSet with a PVC, and its headless Service.
import type { HyphaeMeshSpec } from '../crd/hyphae-mesh-schema.js';
import type { KubeObject } from '../kube/kube-object.js';
import {
  POSTGRES_PORT,
  compact,
  containerSecurityContext,
  labels,
  metadata,
  names,
  podSecurityContext,
  secretEnv,
  selectorLabels,
  tmpMount,
  tmpVolume,
} from './common.js';
import { PGDATA, usesPatroni } from './postgres-topology.js';
import type { HyphaeMesh } from './hyphae-mesh.js';

/** uid/gid of `postgres` in the Debian-based postgres images (ours, images/postgres, and the official ones). */
export const POSTGRES_UID = 999;

/** The container's arguments with spec.postgres.parameters; none (the image's own command) without them. */
function postgresArgs(spec: HyphaeMeshSpec): string[] | undefined {
  const settings = Object.entries(spec.postgres.parameters ?? {});
  if (settings.length === 0) return undefined;
  return ['postgres', ...settings.flatMap(([name, value]) => ['-c', `${name}=${value}`])];
}

export function postgresStatefulSet(mesh: HyphaeMesh, spec: HyphaeMeshSpec): KubeObject {
  const fromSecret = (name: string, key: string): Record<string, unknown> => secretEnv(name, names.postgres(mesh), key);
  return compact({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: metadata(mesh, names.postgres(mesh), 'postgres'),
    spec: {
      replicas: 1,
      serviceName: names.postgres(mesh),
      selector: { matchLabels: selectorLabels(mesh, 'postgres') },
      template: {
        metadata: { labels: labels(mesh, 'postgres') },
        spec: {
          automountServiceAccountToken: false,
          securityContext: podSecurityContext(POSTGRES_UID),
          containers: [
            {
              name: 'postgres',
              image: spec.postgres.image,
              imagePullPolicy: spec.image.pullPolicy,
              ports: [{ name: 'postgres', containerPort: POSTGRES_PORT, protocol: 'TCP' }],
              // The image's command is `postgres`; each setting follows as `-c name=value`.
              args: postgresArgs(spec),
              env: [
                fromSecret('POSTGRES_USER', 'username'),
                fromSecret('POSTGRES_PASSWORD', 'password'),
                fromSecret('POSTGRES_DB', 'database'),
                { name: 'PGDATA', value: PGDATA },
              ],
              resources: spec.postgres.resources,
              readinessProbe: { exec: { command: ['pg_isready', '-U', 'hyphae', '-d', 'hyphae'] }, periodSeconds: 5 },
              livenessProbe: { exec: { command: ['pg_isready', '-U', 'hyphae'] }, periodSeconds: 10, failureThreshold: 6 },
              securityContext: containerSecurityContext(),
              volumeMounts: [
                { name: 'data', mountPath: '/var/lib/postgresql/data' },
                { name: 'run', mountPath: '/var/run/postgresql' },
                tmpMount,
              ],
            },
          ],
          volumes: [{ name: 'run', emptyDir: {} }, tmpVolume],
        },
      },
      volumeClaimTemplates: [postgresDataClaim(mesh, spec)],
    },
  });
}

/** The volume of each instance; the same under Patroni, whose StatefulSet keeps this one's name. */
export function postgresDataClaim(mesh: HyphaeMesh, spec: HyphaeMeshSpec): Record<string, unknown> {
  return compact({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'data', labels: labels(mesh, 'postgres') },
    spec: {
      accessModes: ['ReadWriteOnce'],
      storageClassName: spec.postgres.storage.storageClassName,
      resources: { requests: { storage: spec.postgres.storage.size } },
    },
  });
}

/**
 * The host of the database URL, headless in both modes (the StatefulSet's governing Service): with
 * one instance it selects that pod; under Patroni it has no selector and Patroni keeps its
 * Endpoints pointing at the current leader alone (patroni-config.ts, use_endpoints).
 */
export function postgresService(mesh: HyphaeMesh, spec: HyphaeMeshSpec): KubeObject {
  return compact({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: metadata(mesh, names.postgres(mesh), 'postgres'),
    spec: {
      clusterIP: 'None',
      selector: usesPatroni(spec) ? undefined : selectorLabels(mesh, 'postgres'),
      ports: [{ name: 'postgres', port: POSTGRES_PORT, targetPort: 'postgres', protocol: 'TCP' }],
    },
  });
}
