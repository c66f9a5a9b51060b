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
  selectorLabels,
  tmpMount,
  tmpVolume,
} from './common.js';
import type { HyphaeMesh } from './hyphae-mesh.js';

/** uid/gid of `postgres` in the Debian-based postgres images (pgvector/pgvector builds on them). */
export const POSTGRES_UID = 999;

export function postgresStatefulSet(mesh: HyphaeMesh, spec: HyphaeMeshSpec): KubeObject {
  const secret = names.postgres(mesh);
  const fromSecret = (key: string): Record<string, unknown> => ({ valueFrom: { secretKeyRef: { name: secret, key } } });
  const storage = spec.postgres.storage;
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
              env: [
                { name: 'POSTGRES_USER', ...fromSecret('username') },
                { name: 'POSTGRES_PASSWORD', ...fromSecret('password') },
                { name: 'POSTGRES_DB', ...fromSecret('database') },
                // A subdirectory: initdb refuses a mount point that holds lost+found.
                { name: 'PGDATA', value: '/var/lib/postgresql/data/pgdata' },
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
      volumeClaimTemplates: [
        {
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          metadata: { name: 'data', labels: labels(mesh, 'postgres') },
          spec: {
            accessModes: ['ReadWriteOnce'],
            storageClassName: storage.storageClassName,
            resources: { requests: { storage: storage.size } },
          },
        },
      ],
    },
  });
}

export function postgresService(mesh: HyphaeMesh): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: metadata(mesh, names.postgres(mesh), 'postgres'),
    spec: {
      // Headless: the StatefulSet's governing Service, and with one instance it is also the URL host.
      clusterIP: 'None',
      selector: selectorLabels(mesh, 'postgres'),
      ports: [{ name: 'postgres', port: POSTGRES_PORT, targetPort: 'postgres', protocol: 'TCP' }],
    },
  };
}
