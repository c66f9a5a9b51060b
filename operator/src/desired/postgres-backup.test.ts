import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/kube-object.js';
import { postgresBackupClaim, postgresBackupCronJob } from './postgres-backup.js';
import { meshFixture, restrictedViolations } from './test-fixtures.js';

type JobPod = { restartPolicy: string; containers: Array<{ image: string; command: string[]; env: Array<{ name: string; value?: string; valueFrom?: unknown }> }> };
const jobPod = (cron: KubeObject): JobPod =>
  (cron.spec as { jobTemplate: { spec: { template: { spec: JobPod } } } }).jobTemplate.spec.template.spec;

describe('PostgreSQL backups', () => {
  it('runs hyphae-backup-job on the schedule, one at a time, against the primary Service', () => {
    const { mesh, spec } = meshFixture({ postgres: { image: 'pg:t', backup: { enabled: true, schedule: '15 2 * * *', type: 'diff' } } });
    const cron = postgresBackupCronJob(mesh, spec);
    expect(cron.metadata.name).toBe('demo-postgres-backup');
    expect(cron.spec).toMatchObject({ schedule: '15 2 * * *', concurrencyPolicy: 'Forbid' });
    const pod = jobPod(cron);
    expect(pod.restartPolicy).toBe('Never');
    expect(pod.containers[0]?.image).toBe('pg:t');
    expect(pod.containers[0]?.command).toEqual(['hyphae-backup-job', 'diff']);
    const env = Object.fromEntries((pod.containers[0]?.env ?? []).map((e) => [e.name, e.value ?? e.valueFrom]));
    expect(env.PGHOST).toBe('demo-postgres.team-a.svc');
    expect(env.PGPASSWORD).toEqual({ secretKeyRef: { name: 'demo-postgres', key: 'password' } });
    expect(restrictedViolations(pod as never)).toEqual([]);
    // The job's pods are told apart from the database's for the NetworkPolicy.
    expect((cron.spec as { jobTemplate: { spec: { template: { metadata: { labels: Record<string, string> } } } } }).jobTemplate.spec.template.metadata.labels).toMatchObject({
      'app.kubernetes.io/component': 'postgres-backup',
    });
  });

  it('claims the repository volume without an owner reference, so deleting the mesh keeps the backups', () => {
    const { mesh, spec } = meshFixture({ postgres: { backup: { enabled: true, volume: { size: '5Gi', accessMode: 'ReadWriteOnce', storageClassName: 'nfs' } } } });
    const claim = postgresBackupClaim(mesh, spec);
    expect(claim?.metadata).toMatchObject({ name: 'demo-postgres-backup', namespace: 'team-a', labels: { 'app.kubernetes.io/managed-by': 'hyphae-operator' } });
    expect(claim?.metadata.ownerReferences).toBeUndefined();
    expect(claim?.spec).toEqual({ accessModes: ['ReadWriteOnce'], storageClassName: 'nfs', resources: { requests: { storage: '5Gi' } } });
    expect(meshFixture({ postgres: { backup: { enabled: true } } }).spec.postgres.backup.volume.accessMode).toBe('ReadWriteMany');
  });

  it('claims nothing for an existing claim or object storage', () => {
    for (const backup of [{ enabled: true, volume: { claimName: 'shared' } }, { enabled: true, pgbackrest: { 'repo1-type': 's3' } }]) {
      const { mesh, spec } = meshFixture({ postgres: { backup } });
      expect(postgresBackupClaim(mesh, spec)).toBeUndefined();
    }
  });
});
