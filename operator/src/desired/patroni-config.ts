// The settings Patroni and pgBackRest read, as one ConfigMap mounted into every PostgreSQL pod:
// patroni.yml (the Kubernetes API as the DCS, synchronous replication, bootstrap by initdb or by a
// pgBackRest restore), and pgbackrest.conf / restore.conf for the backup and restore repositories.
// Per-pod values (name, IP) and credentials come from the environment (patroni-statefulset.ts).
import { stringify } from 'yaml';
import type { HyphaeMeshSpec } from '../crd/hyphae-mesh-schema.js';
import type { KubeObject } from '../kube/kube-object.js';
import { PATRONI_PORT, POSTGRES_PORT, metadata, names, selectorLabels } from './common.js';
import { POSTGRES_USER } from './postgres-secret.js';
import { BACKUP_REPOSITORY_PATH, PGDATA, RESTORE_REPOSITORY_PATH, backupClaimName, recoveryTargetTime } from './postgres-topology.js';
import type { HyphaeMesh } from './hyphae-mesh.js';

export const PATRONI_CONFIG_FILE = 'patroni.yml';
export const PGBACKREST_CONFIG_FILE = 'pgbackrest.conf';
export const RESTORE_CONFIG_FILE = 'restore.conf';
const SCRIPTS = '/usr/local/bin';

/** The pgBackRest stanza of a mesh's own backups: the mesh's name. */
export function backupStanza(mesh: HyphaeMesh): string {
  return mesh.metadata.name;
}

function archiveParameters(mesh: HyphaeMesh, spec: HyphaeMeshSpec): Record<string, string | number> {
  const backup = spec.postgres.backup;
  if (!backup.enabled) return { archive_mode: 'off' };
  return {
    archive_mode: 'on',
    archive_command: `pgbackrest --stanza=${backupStanza(mesh)} archive-push "%p"`,
    archive_timeout: backup.archiveTimeoutSeconds,
  };
}

/** Bootstrap of a new cluster: initdb, or a restore from another mesh's backups replayed to its target. */
function bootstrapMethod(spec: HyphaeMeshSpec): Record<string, unknown> {
  const initdb = [{ encoding: 'UTF8' }, { 'locale-provider': 'builtin' }, { 'builtin-locale': 'C.UTF-8' }, 'data-checksums'];
  const restore = spec.postgres.restore;
  if (restore === undefined) return { initdb };
  const target = restore.targetTime === undefined ? undefined : recoveryTargetTime(restore.targetTime);
  return {
    method: 'pgbackrest',
    initdb,
    pgbackrest: {
      command: `${SCRIPTS}/hyphae-restore bootstrap`,
      // Patroni writes these recovery settings itself, in place of those pgBackRest would leave behind.
      keep_existing_recovery_conf: false,
      stanza: restore.stanza,
      ...(target === undefined ? {} : { 'target-time': target }),
      recovery_conf: {
        restore_command: `${SCRIPTS}/hyphae-restore wal --stanza=${restore.stanza} --datadir=${PGDATA} %f "%p"`,
        recovery_target_timeline: 'latest',
        ...(target === undefined ? {} : { recovery_target_time: target, recovery_target_action: 'promote' }),
      },
    },
  };
}

export function patroniSettings(mesh: HyphaeMesh, spec: HyphaeMeshSpec): Record<string, unknown> {
  return {
    scope: names.postgres(mesh),
    restapi: { listen: `0.0.0.0:${PATRONI_PORT}` },
    kubernetes: {
      labels: selectorLabels(mesh, 'postgres'),
      // The leader's IP goes into the Endpoints of the primary Service, written together with the
      // leader lock: only the current leader can be behind <name>-postgres.
      use_endpoints: true,
      ports: [{ name: 'postgres', port: POSTGRES_PORT }],
    },
    bootstrap: {
      dcs: {
        ttl: 30,
        loop_wait: 10,
        retry_timeout: 10,
        maximum_lag_on_failover: 1_048_576,
        // A commit is acknowledged once a synchronous standby has it too, and only that standby may be promoted.
        synchronous_mode: true,
        postgresql: {
          use_pg_rewind: true,
          use_slots: true,
          parameters: { max_connections: 200, wal_level: 'replica', hot_standby: 'on', wal_log_hints: 'on', max_wal_senders: 10, max_replication_slots: 10 },
        },
      },
      ...bootstrapMethod(spec),
      post_bootstrap: `${SCRIPTS}/hyphae-post-bootstrap`,
    },
    postgresql: {
      listen: `0.0.0.0:${POSTGRES_PORT}`,
      data_dir: PGDATA,
      pgpass: '/tmp/pgpass',
      use_unix_socket: true,
      // The user's settings first: what the operator must set wins (the CRD refuses those names anyway).
      parameters: { ...spec.postgres.parameters, unix_socket_directories: '/var/run/postgresql', password_encryption: 'scram-sha-256', ...archiveParameters(mesh, spec) },
      // The pod's own processes (Patroni, pgBackRest, the scripts) over the socket; everyone else with the password.
      pg_hba: ['local all all trust', 'host replication all all scram-sha-256', 'host all all all scram-sha-256'],
      callbacks: { on_start: `${SCRIPTS}/hyphae-patroni-callback`, on_role_change: `${SCRIPTS}/hyphae-patroni-callback` },
    },
    watchdog: { mode: 'off' },
  };
}

function iniFile(sections: Array<[string, Record<string, string | number>]>): string {
  return sections.map(([name, options]) => [`[${name}]`, ...Object.entries(options).map(([k, v]) => `${k}=${String(v)}`)].join('\n')).join('\n\n') + '\n';
}

/** Warnings only, to the container's output (the root filesystem is read-only); hyphae-backup asks for more. */
const PGBACKREST_LOGGING = { 'log-level-console': 'warn', 'log-level-file': 'off' };

export function pgbackrestConfig(mesh: HyphaeMesh, spec: HyphaeMeshSpec): string {
  const backup = spec.postgres.backup;
  const onVolume = backupClaimName(mesh, spec) !== undefined;
  return iniFile([
    [
      'global',
      {
        ...(onVolume ? { 'repo1-path': BACKUP_REPOSITORY_PATH } : {}),
        'repo1-retention-full': backup.retentionFull,
        'start-fast': 'y',
        ...PGBACKREST_LOGGING,
        ...(backup.pgbackrest ?? {}),
      },
    ],
    [backupStanza(mesh), { 'pg1-path': PGDATA, 'pg1-socket-path': '/var/run/postgresql', 'pg1-port': POSTGRES_PORT, 'pg1-user': POSTGRES_USER }],
  ]);
}

export function restoreConfig(spec: HyphaeMeshSpec): string {
  const restore = spec.postgres.restore;
  return iniFile([['global', { ...(restore?.claimName === undefined ? {} : { 'repo1-path': RESTORE_REPOSITORY_PATH }), ...PGBACKREST_LOGGING, ...(restore?.pgbackrest ?? {}) }]]);
}

export function patroniConfigMap(mesh: HyphaeMesh, spec: HyphaeMeshSpec): KubeObject {
  const data: Record<string, string> = { [PATRONI_CONFIG_FILE]: stringify(patroniSettings(mesh, spec)) };
  if (spec.postgres.backup.enabled) data[PGBACKREST_CONFIG_FILE] = pgbackrestConfig(mesh, spec);
  if (spec.postgres.restore !== undefined) data[RESTORE_CONFIG_FILE] = restoreConfig(spec);
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: metadata(mesh, names.patroni(mesh), 'postgres'), data };
}
