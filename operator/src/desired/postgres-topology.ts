// How the managed PostgreSQL runs, derived from the spec: one plain instance (the image's own
// entrypoint, as it always has), or Patroni, which more than one instance, backups and a restore need.
import type { HyphaeMeshSpec } from '../crd/hyphae-mesh-schema.js';
import { names } from './common.js';
import type { HyphaeMesh } from './hyphae-mesh.js';

/** A subdirectory of the volume: initdb refuses a mount point that holds lost+found. */
export const PGDATA = '/var/lib/postgresql/data/pgdata';
export const BACKUP_REPOSITORY_PATH = '/var/lib/pgbackrest';
export const RESTORE_REPOSITORY_PATH = '/var/lib/pgbackrest-restore';

export function postgresInstances(spec: HyphaeMeshSpec): number {
  return spec.postgres.instances ?? 1;
}

export function usesPatroni(spec: HyphaeMeshSpec): boolean {
  const pg = spec.postgres;
  return pg.mode === 'managed' && (postgresInstances(spec) > 1 || pg.backup.enabled || pg.restore !== undefined);
}

/** A pgBackRest repository lives on a volume unless its settings name object storage as repo1-type. */
export function repositoryOnVolume(options: Readonly<Record<string, string>> | undefined): boolean {
  const type = options?.['repo1-type'];
  return type === undefined || type === 'posix' || type === 'cifs';
}

/** The claim holding the mesh's own backup repository, when it lives on a volume. */
export function backupClaimName(mesh: HyphaeMesh, spec: HyphaeMeshSpec): string | undefined {
  const backup = spec.postgres.backup;
  if (!backup.enabled || !repositoryOnVolume(backup.pgbackrest)) return undefined;
  return backup.volume.claimName ?? names.postgresBackup(mesh);
}

/** An RFC 3339 time in the form pgBackRest's --target requires and PostgreSQL reads: "YYYY-MM-DD HH:MM:SS[.fff]+00". */
export function recoveryTargetTime(rfc3339: string): string {
  const [date, time] = new Date(rfc3339).toISOString().split('T') as [string, string];
  return `${date} ${time.replace(/(\.000)?Z$/, '')}+00`;
}
