// Managed PostgreSQL under Patroni: the StatefulSet of every instance (same name, selector and claim
// template as the single instance), running `patroni` with the Kubernetes API as its DCS. Patroni
// elects the leader, labels the pods role=primary / role=replica and writes the leader's address
// into the primary Service's Endpoints; pgBackRest archives WAL to the backup repository.
import type { HyphaeMeshSpec } from '../crd/hyphae-mesh-schema.js';
import type { KubeObject } from '../kube/kube-object.js';
import {
  CONFIG_HASH_ANNOTATION,
  PATRONI_PORT,
  POSTGRES_PORT,
  compact,
  containerSecurityContext,
  labels,
  metadata,
  names,
  podSecurityContext,
  secretEnv,
  selectorLabels,
  stableHash,
  tmpMount,
  tmpVolume,
} from './common.js';
import { PATRONI_CONFIG_FILE, PGBACKREST_CONFIG_FILE, RESTORE_CONFIG_FILE, backupStanza, patroniConfigMap } from './patroni-config.js';
import { POSTGRES_UID, postgresDataClaim } from './postgres-statefulset.js';
import { BACKUP_REPOSITORY_PATH, RESTORE_REPOSITORY_PATH, backupClaimName, postgresInstances } from './postgres-topology.js';
import type { HyphaeMesh } from './hyphae-mesh.js';

/** The label Patroni selects its own pods by, besides the component labels (its scope). */
export const PATRONI_SCOPE_LABEL = 'cluster-name';
/** Patroni sets it on every pod: `primary` on the leader, `replica` on running replicas. */
export const PATRONI_ROLE_LABEL = 'role';

type Env = Record<string, unknown>;

function patroniEnv(mesh: HyphaeMesh, spec: HyphaeMeshSpec): Env[] {
  const fromSecret = (name: string, key: string): Env => secretEnv(name, names.postgres(mesh), key);
  const field = (name: string, fieldPath: string): Env => ({ name, valueFrom: { fieldRef: { fieldPath } } });
  return [
    // Patroni's member name must be the pod's: it patches that pod's labels and annotations.
    field('PATRONI_NAME', 'metadata.name'),
    field('PATRONI_KUBERNETES_NAMESPACE', 'metadata.namespace'),
    field('PATRONI_KUBERNETES_POD_IP', 'status.podIP'),
    { name: 'PATRONI_POSTGRESQL_CONNECT_ADDRESS', value: `$(PATRONI_KUBERNETES_POD_IP):${POSTGRES_PORT}` },
    { name: 'PATRONI_RESTAPI_CONNECT_ADDRESS', value: `$(PATRONI_KUBERNETES_POD_IP):${PATRONI_PORT}` },
    // One role for the application, replication and rewind: the superuser of the single instance,
    // so a one-instance cluster's data directory needs no new role when Patroni takes it over.
    fromSecret('PATRONI_SUPERUSER_USERNAME', 'username'),
    fromSecret('PATRONI_SUPERUSER_PASSWORD', 'password'),
    fromSecret('PATRONI_REPLICATION_USERNAME', 'username'),
    fromSecret('PATRONI_REPLICATION_PASSWORD', 'password'),
    // Patroni's REST API answers reads to anyone it admits; switchover, restart and reload need these.
    fromSecret('PATRONI_RESTAPI_USERNAME', 'username'),
    fromSecret('PATRONI_RESTAPI_PASSWORD', 'password'),
    fromSecret('POSTGRES_DB', 'database'),
    ...(spec.postgres.backup.enabled ? [{ name: 'PGBACKREST_STANZA', value: backupStanza(mesh) }] : []),
  ];
}

function configItems(spec: HyphaeMeshSpec): Array<{ key: string; path: string }> {
  const items = [];
  if (spec.postgres.backup.enabled) items.push({ key: PGBACKREST_CONFIG_FILE, path: PGBACKREST_CONFIG_FILE });
  if (spec.postgres.restore !== undefined) items.push({ key: RESTORE_CONFIG_FILE, path: RESTORE_CONFIG_FILE });
  return items;
}

export function patroniStatefulSet(mesh: HyphaeMesh, spec: HyphaeMeshSpec): KubeObject {
  const pg = spec.postgres;
  const config = patroniConfigMap(mesh, spec);
  const backupClaim = backupClaimName(mesh, spec);
  const restoreClaim = pg.restore?.claimName;
  const pgbackrestItems = configItems(spec);
  const mounts: Array<Record<string, unknown>> = [
    { name: 'data', mountPath: '/var/lib/postgresql/data' },
    { name: 'run', mountPath: '/var/run/postgresql' },
    { name: 'patroni', mountPath: '/etc/patroni', readOnly: true },
    tmpMount,
  ];
  const volumes: Array<Record<string, unknown>> = [
    { name: 'run', emptyDir: {} },
    { name: 'patroni', configMap: { name: config.metadata.name, items: [{ key: PATRONI_CONFIG_FILE, path: PATRONI_CONFIG_FILE }] } },
    tmpVolume,
  ];
  if (pgbackrestItems.length > 0) {
    mounts.push({ name: 'pgbackrest', mountPath: '/etc/pgbackrest', readOnly: true });
    volumes.push({ name: 'pgbackrest', configMap: { name: config.metadata.name, items: pgbackrestItems } });
  }
  if (backupClaim !== undefined) {
    mounts.push({ name: 'backup-repository', mountPath: BACKUP_REPOSITORY_PATH });
    volumes.push({ name: 'backup-repository', persistentVolumeClaim: { claimName: backupClaim } });
  }
  if (restoreClaim !== undefined) {
    mounts.push({ name: 'restore-repository', mountPath: RESTORE_REPOSITORY_PATH, readOnly: true });
    volumes.push({ name: 'restore-repository', persistentVolumeClaim: { claimName: restoreClaim, readOnly: true } });
  }
  const envFrom = [
    ...(pg.backup.enabled && pg.backup.secretRef ? [{ secretRef: { name: pg.backup.secretRef.name } }] : []),
    // hyphae-restore hands these to pgBackRest under their own names, for the restore only.
    ...(pg.restore?.secretRef ? [{ prefix: 'HYPHAE_RESTORE_', secretRef: { name: pg.restore.secretRef.name } }] : []),
  ];
  const probe = (path: string, period: number, failures: number): Record<string, unknown> => ({
    httpGet: { path, port: 'patroni' },
    periodSeconds: period,
    failureThreshold: failures,
  });
  return compact({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: metadata(mesh, names.postgres(mesh), 'postgres'),
    spec: {
      replicas: postgresInstances(spec),
      serviceName: names.postgres(mesh),
      // Patroni orders the members itself; waiting for pod 0 to be Ready could wait for a leader that pod 2 must become.
      podManagementPolicy: 'Parallel',
      selector: { matchLabels: selectorLabels(mesh, 'postgres') },
      template: {
        metadata: {
          labels: { ...labels(mesh, 'postgres'), [PATRONI_SCOPE_LABEL]: names.postgres(mesh) },
          annotations: { [CONFIG_HASH_ANNOTATION]: stableHash(config.data) },
        },
        spec: {
          serviceAccountName: names.patroni(mesh),
          // Patroni's DCS is the Kubernetes API, reached with this pod's token.
          automountServiceAccountToken: true,
          securityContext: podSecurityContext(POSTGRES_UID),
          affinity: {
            podAntiAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [
                { weight: 100, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: selectorLabels(mesh, 'postgres') } } },
              ],
            },
          },
          containers: [
            {
              name: 'postgres',
              image: pg.image,
              imagePullPolicy: spec.image.pullPolicy,
              command: ['patroni', `/etc/patroni/${PATRONI_CONFIG_FILE}`],
              ports: [
                { name: 'postgres', containerPort: POSTGRES_PORT, protocol: 'TCP' },
                { name: 'patroni', containerPort: PATRONI_PORT, protocol: 'TCP' },
              ],
              env: patroniEnv(mesh, spec),
              envFrom: envFrom.length > 0 ? envFrom : undefined,
              resources: pg.resources,
              // Ready: the leader, or a replica whose PostgreSQL runs; alive: Patroni's loop turns.
              readinessProbe: probe('/readiness', 5, 3),
              livenessProbe: probe('/liveness', 10, 6),
              securityContext: containerSecurityContext(),
              volumeMounts: mounts,
            },
          ],
          volumes,
        },
      },
      volumeClaimTemplates: [postgresDataClaim(mesh, spec)],
    },
  });
}
