import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { patroniConfigMap, patroniSettings, pgbackrestConfig, restoreConfig } from './patroni-config.js';
import { meshFixture } from './test-fixtures.js';

type Settings = {
  scope: string;
  kubernetes: Record<string, unknown>;
  bootstrap: { dcs: Record<string, unknown>; method?: string; pgbackrest?: Record<string, unknown>; initdb: unknown[]; post_bootstrap: string };
  postgresql: { parameters: Record<string, unknown>; pg_hba: string[]; data_dir: string };
};
const settings = (postgres: Record<string, unknown> = {}): Settings => {
  const { mesh, spec } = meshFixture({ postgres: { instances: 3, ...postgres } });
  return patroniSettings(mesh, spec) as Settings;
};

describe('Patroni settings', () => {
  it('uses the Kubernetes API as the DCS, with the leader in the Endpoints of the primary Service', () => {
    const s = settings();
    expect(s.scope).toBe('demo-postgres');
    expect(s.kubernetes).toEqual({
      labels: { 'app.kubernetes.io/name': 'hyphae', 'app.kubernetes.io/instance': 'demo', 'app.kubernetes.io/component': 'postgres' },
      use_endpoints: true,
      ports: [{ name: 'postgres', port: 5432 }],
    });
    expect(s.postgresql.data_dir).toBe('/var/lib/postgresql/data/pgdata');
  });

  it('replicates synchronously and bootstraps with initdb and the database-creating hook', () => {
    const s = settings();
    expect(s.bootstrap.dcs).toMatchObject({ synchronous_mode: true, postgresql: { use_pg_rewind: true, use_slots: true, parameters: { max_connections: 200 } } });
    expect(s.bootstrap.method).toBeUndefined();
    expect(s.bootstrap.initdb).toContain('data-checksums');
    expect(s.bootstrap.post_bootstrap).toBe('/usr/local/bin/hyphae-post-bootstrap');
    // Nobody connects over the network without the password.
    expect(s.postgresql.pg_hba.filter((l) => l.startsWith('host'))).toEqual(['host replication all all scram-sha-256', 'host all all all scram-sha-256']);
  });

  it('applies spec.postgres.parameters on every instance, under the settings the operator owns', () => {
    const parameters = settings({ parameters: { shared_buffers: '2GB', maintenance_work_mem: '1GB' } }).postgresql.parameters;
    expect(parameters).toMatchObject({ shared_buffers: '2GB', maintenance_work_mem: '1GB', unix_socket_directories: '/var/run/postgresql', archive_mode: 'off' });
  });

  it('archives WAL through pgBackRest only with backups on', () => {
    expect(settings().postgresql.parameters).toMatchObject({ archive_mode: 'off' });
    expect(settings().postgresql.parameters.archive_command).toBeUndefined();
    expect(settings({ backup: { enabled: true, archiveTimeoutSeconds: 30 } }).postgresql.parameters).toMatchObject({
      archive_mode: 'on',
      archive_command: 'pgbackrest --stanza=demo archive-push "%p"',
      archive_timeout: 30,
    });
  });

  it('bootstraps a restore through pgBackRest, replaying to the target time and promoting', () => {
    const s = settings({ restore: { stanza: 'old', claimName: 'old-postgres-backup', targetTime: '2026-12-05T10:11:12Z' } });
    expect(s.bootstrap.method).toBe('pgbackrest');
    expect(s.bootstrap.pgbackrest).toEqual({
      command: '/usr/local/bin/hyphae-restore bootstrap',
      keep_existing_recovery_conf: false,
      stanza: 'old',
      'target-time': '2026-12-05 10:11:12+00',
      recovery_conf: {
        restore_command: '/usr/local/bin/hyphae-restore wal --stanza=old --datadir=/var/lib/postgresql/data/pgdata %f "%p"',
        recovery_target_timeline: 'latest',
        recovery_target_time: '2026-12-05 10:11:12+00',
        recovery_target_action: 'promote',
      },
    });
    // Without a target: to the end of the archived WAL.
    const latest = settings({ restore: { stanza: 'old', claimName: 'c' } }).bootstrap.pgbackrest as { recovery_conf: Record<string, unknown> };
    expect(latest.recovery_conf).toEqual({ restore_command: '/usr/local/bin/hyphae-restore wal --stanza=old --datadir=/var/lib/postgresql/data/pgdata %f "%p"', recovery_target_timeline: 'latest' });
  });
});

describe('pgBackRest settings', () => {
  it('puts the repository on the volume, keeps retentionFull full backups and names the stanza after the mesh', () => {
    const { mesh, spec } = meshFixture({ postgres: { backup: { enabled: true, retentionFull: 3 } } });
    const conf = pgbackrestConfig(mesh, spec);
    expect(conf).toContain('[global]\nrepo1-path=/var/lib/pgbackrest\nrepo1-retention-full=3\n');
    expect(conf).toContain('\n[demo]\npg1-path=/var/lib/postgresql/data/pgdata\npg1-socket-path=/var/run/postgresql\npg1-port=5432\npg1-user=hyphae\n');
  });

  it('takes object storage settings instead of the volume', () => {
    const { mesh, spec } = meshFixture({
      postgres: { backup: { enabled: true, pgbackrest: { 'repo1-type': 's3', 'repo1-s3-bucket': 'memory-backups', 'repo1-path': '/demo' } } },
    });
    const conf = pgbackrestConfig(mesh, spec);
    expect(conf).toContain('repo1-type=s3\nrepo1-s3-bucket=memory-backups\nrepo1-path=/demo\n');
    expect(conf).not.toContain('repo1-path=/var/lib/pgbackrest');
  });

  it('reads a restore from the mounted claim or from the given repository', () => {
    expect(restoreConfig(meshFixture({ postgres: { restore: { stanza: 'old', claimName: 'c' } } }).spec)).toBe(
      '[global]\nrepo1-path=/var/lib/pgbackrest-restore\nlog-level-console=warn\nlog-level-file=off\n',
    );
    expect(restoreConfig(meshFixture({ postgres: { restore: { stanza: 'old', pgbackrest: { 'repo1-type': 's3' } } } }).spec)).toContain('repo1-type=s3');
  });

  it('carries only the files the spec needs', () => {
    const keys = (postgres: Record<string, unknown>): string[] => {
      const { mesh, spec } = meshFixture({ postgres });
      return Object.keys(patroniConfigMap(mesh, spec).data as Record<string, string>).sort();
    };
    expect(keys({ instances: 2 })).toEqual(['patroni.yml']);
    expect(keys({ backup: { enabled: true } })).toEqual(['patroni.yml', 'pgbackrest.conf']);
    expect(keys({ backup: { enabled: true }, restore: { stanza: 'old', claimName: 'c' } })).toEqual(['patroni.yml', 'pgbackrest.conf', 'restore.conf']);
    const { mesh, spec } = meshFixture({ postgres: { instances: 2 } });
    expect(parse((patroniConfigMap(mesh, spec).data as Record<string, string>)['patroni.yml'] ?? '')).toEqual(patroniSettings(mesh, spec));
  });
});
