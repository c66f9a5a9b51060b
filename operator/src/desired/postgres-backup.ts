// Scheduled backups of the managed PostgreSQL: a CronJob that has the current primary run
// pgBackRest (hyphae-backup-job in the PostgreSQL image), and the repository volume they and the
// archived WAL go to.
import type { HyphaeMeshSpec } from '../crd/hyphae-mesh-schema.js';
import type { KubeObject } from '../kube/kube-object.js';
import { POSTGRES_PORT, compact, containerSecurityContext, labels, metadata, names, podSecurityContext, secretEnv, tmpMount, tmpVolume } from './common.js';
import { POSTGRES_UID } from './postgres-statefulset.js';
import { backupClaimName } from './postgres-topology.js';
import type { HyphaeMesh } from './hyphae-mesh.js';

export function postgresBackupCronJob(mesh: HyphaeMesh, spec: HyphaeMeshSpec): KubeObject {
  const backup = spec.postgres.backup;
  const fromSecret = (name: string, key: string): Record<string, unknown> => secretEnv(name, names.postgres(mesh), key);
  const podLabels = labels(mesh, 'postgres-backup');
  return compact({
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: metadata(mesh, names.postgresBackup(mesh), 'postgres-backup'),
    spec: {
      schedule: backup.schedule,
      // pgBackRest refuses a second backup of a stanza while one runs; no point queueing one.
      concurrencyPolicy: 'Forbid',
      startingDeadlineSeconds: 3600,
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 3,
      jobTemplate: {
        metadata: { labels: podLabels },
        spec: {
          // A failover during the backup fails it; one more try reaches the new primary.
          backoffLimit: 2,
          template: {
            metadata: { labels: podLabels },
            spec: {
              restartPolicy: 'Never',
              automountServiceAccountToken: false,
              securityContext: podSecurityContext(POSTGRES_UID),
              containers: [
                {
                  name: 'backup',
                  image: spec.postgres.image,
                  imagePullPolicy: spec.image.pullPolicy,
                  command: ['hyphae-backup-job', backup.type],
                  env: [
                    // The primary Service: only the leader is behind it.
                    { name: 'PGHOST', value: `${names.postgres(mesh)}.${mesh.metadata.namespace}.svc` },
                    { name: 'PGPORT', value: String(POSTGRES_PORT) },
                    { name: 'PGCONNECT_TIMEOUT', value: '10' },
                    fromSecret('PGUSER', 'username'),
                    fromSecret('PGPASSWORD', 'password'),
                    fromSecret('PGDATABASE', 'database'),
                  ],
                  // It only waits for the primary's answer: pgBackRest does the work there.
                  resources: { requests: { cpu: '10m', memory: '32Mi' } },
                  securityContext: containerSecurityContext(),
                  volumeMounts: [tmpMount],
                },
              ],
              volumes: [tmpVolume],
            },
          },
        },
      },
    },
  });
}

/**
 * The repository volume, unless the spec names an existing claim or object storage. It carries no
 * owner reference: deleting the mesh keeps its backups, as it keeps its data volumes.
 */
export function postgresBackupClaim(mesh: HyphaeMesh, spec: HyphaeMeshSpec): KubeObject | undefined {
  const volume = spec.postgres.backup.volume;
  if (backupClaimName(mesh, spec) !== names.postgresBackup(mesh)) return undefined;
  const { ownerReferences: _owned, ...meta } = metadata(mesh, names.postgresBackup(mesh), 'postgres-backup');
  return compact({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: meta,
    spec: {
      accessModes: [volume.accessMode],
      storageClassName: volume.storageClassName,
      resources: { requests: { storage: volume.size } },
    },
  });
}
