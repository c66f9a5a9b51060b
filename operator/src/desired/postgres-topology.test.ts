import { describe, expect, it } from 'vitest';
import { backupClaimName, postgresInstances, recoveryTargetTime, repositoryOnVolume, usesPatroni } from './postgres-topology.js';
import { meshFixture } from './test-fixtures.js';

describe('postgres topology', () => {
  it('runs one plain instance by default, and Patroni for more instances, backups or a restore', () => {
    const patroni = (postgres: Record<string, unknown>): boolean => usesPatroni(meshFixture({ postgres }).spec);
    expect(patroni({})).toBe(false);
    expect(postgresInstances(meshFixture().spec)).toBe(1);
    expect(patroni({ instances: 1 })).toBe(false);
    expect(patroni({ instances: 3 })).toBe(true);
    expect(patroni({ backup: { enabled: true } })).toBe(true);
    expect(patroni({ restore: { stanza: 'old', claimName: 'old-postgres-backup' } })).toBe(true);
    // Other modes never run Patroni, whatever instances says.
    expect(patroni({ mode: 'cnpg', instances: 3 })).toBe(false);
  });

  it('keeps the backup repository on a volume unless object storage is named', () => {
    expect(repositoryOnVolume(undefined)).toBe(true);
    expect(repositoryOnVolume({ 'repo1-type': 'posix' })).toBe(true);
    expect(repositoryOnVolume({ 'repo1-type': 's3' })).toBe(false);
    const claim = (backup: Record<string, unknown>): string | undefined => {
      const { mesh, spec } = meshFixture({ postgres: { backup } });
      return backupClaimName(mesh, spec);
    };
    expect(claim({})).toBeUndefined();
    expect(claim({ enabled: true })).toBe('demo-postgres-backup');
    expect(claim({ enabled: true, volume: { claimName: 'shared-backups' } })).toBe('shared-backups');
    expect(claim({ enabled: true, pgbackrest: { 'repo1-type': 'gcs' } })).toBeUndefined();
  });

  it('writes a recovery target in the one form pgBackRest accepts, in UTC', () => {
    expect(recoveryTargetTime('2026-12-05T10:11:12Z')).toBe('2026-12-05 10:11:12+00');
    expect(recoveryTargetTime('2026-12-05T11:11:12.250+01:00')).toBe('2026-12-05 10:11:12.250+00');
  });
});
