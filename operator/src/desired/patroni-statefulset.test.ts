import { describe, expect, it } from 'vitest';
import { patroniStatefulSet } from './patroni-statefulset.js';
import { postgresStatefulSet } from './postgres-statefulset.js';
import { meshFixture, podSpecOf, restrictedViolations } from './test-fixtures.js';

type Container = {
  command: string[];
  env: Array<{ name: string; value?: string; valueFrom?: unknown }>;
  envFrom?: unknown[];
  readinessProbe: unknown;
  livenessProbe: unknown;
  volumeMounts: Array<{ name: string; mountPath: string; readOnly?: boolean }>;
};
type Volume = { name: string; persistentVolumeClaim?: { claimName: string; readOnly?: boolean }; configMap?: { items: Array<{ key: string }> } };

const build = (postgres: Record<string, unknown>) => {
  const { mesh, spec } = meshFixture({ postgres });
  const sts = patroniStatefulSet(mesh, spec);
  const pod = podSpecOf(sts) as unknown as { serviceAccountName: string; automountServiceAccountToken: boolean; containers: Container[]; volumes: Volume[] };
  return { mesh, spec, sts, pod, container: pod.containers[0] as Container };
};

describe('Patroni StatefulSet', () => {
  it('runs every instance under Patroni with its own service account, in parallel', () => {
    const { sts, pod, container } = build({ instances: 3, image: 'hyphae.local/postgres:t' });
    expect(sts.metadata.name).toBe('demo-postgres');
    expect(sts.spec).toMatchObject({ replicas: 3, serviceName: 'demo-postgres', podManagementPolicy: 'Parallel' });
    expect(container.command).toEqual(['patroni', '/etc/patroni/patroni.yml']);
    expect(pod.serviceAccountName).toBe('demo-patroni');
    expect(pod.automountServiceAccountToken).toBe(true);
    expect(restrictedViolations(podSpecOf(sts))).toEqual([]);
    expect(podSpecOf(sts).securityContext).toMatchObject({ runAsUser: 999, fsGroup: 999 });
    // Patroni selects its pods by the component labels plus its scope.
    expect((sts.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels).toMatchObject({
      'app.kubernetes.io/component': 'postgres',
      'cluster-name': 'demo-postgres',
    });
  });

  it('keeps the name, selector and claim template of the single instance', () => {
    const { mesh, spec, sts } = build({ instances: 3, storage: { size: '5Gi' } });
    const single = postgresStatefulSet(mesh, { ...spec, postgres: { ...spec.postgres, instances: 1 } });
    const immutable = (o: typeof sts): unknown => {
      const s = o.spec as Record<string, unknown>;
      return [o.metadata.name, s.serviceName, s.selector, s.volumeClaimTemplates];
    };
    expect(immutable(sts)).toEqual(immutable(single));
  });

  it("names itself, its address and the superuser from the pod and the mesh's Secret", () => {
    const { container } = build({ instances: 2 });
    const env = Object.fromEntries(container.env.map((e) => [e.name, e.value ?? e.valueFrom]));
    expect(env.PATRONI_NAME).toEqual({ fieldRef: { fieldPath: 'metadata.name' } });
    expect(env.PATRONI_KUBERNETES_POD_IP).toEqual({ fieldRef: { fieldPath: 'status.podIP' } });
    expect(env.PATRONI_POSTGRESQL_CONNECT_ADDRESS).toBe('$(PATRONI_KUBERNETES_POD_IP):5432');
    expect(env.PATRONI_SUPERUSER_PASSWORD).toEqual({ secretKeyRef: { name: 'demo-postgres', key: 'password' } });
    expect(env.PATRONI_REPLICATION_USERNAME).toEqual({ secretKeyRef: { name: 'demo-postgres', key: 'username' } });
    expect(env.PGBACKREST_STANZA).toBeUndefined();
    // The env list refers to PATRONI_KUBERNETES_POD_IP only after defining it.
    const names = container.env.map((e) => e.name);
    expect(names.indexOf('PATRONI_KUBERNETES_POD_IP')).toBeLessThan(names.indexOf('PATRONI_POSTGRESQL_CONNECT_ADDRESS'));
    expect(container.readinessProbe).toMatchObject({ httpGet: { path: '/readiness', port: 'patroni' } });
    expect(container.livenessProbe).toMatchObject({ httpGet: { path: '/liveness', port: 'patroni' } });
  });

  it('mounts the backup repository and pgBackRest settings with backups on, and the restore repository read-only', () => {
    const { container, pod } = build({
      backup: { enabled: true, secretRef: { name: 's3-keys' } },
      restore: { stanza: 'old', claimName: 'old-postgres-backup', secretRef: { name: 'old-keys' } },
    });
    const mounts = Object.fromEntries(container.volumeMounts.map((m) => [m.name, m]));
    expect(mounts['backup-repository']).toEqual({ name: 'backup-repository', mountPath: '/var/lib/pgbackrest' });
    expect(mounts['restore-repository']).toEqual({ name: 'restore-repository', mountPath: '/var/lib/pgbackrest-restore', readOnly: true });
    expect(mounts.pgbackrest?.mountPath).toBe('/etc/pgbackrest');
    const volumes = Object.fromEntries(pod.volumes.map((v) => [v.name, v]));
    expect(volumes['backup-repository']?.persistentVolumeClaim).toEqual({ claimName: 'demo-postgres-backup' });
    expect(volumes['restore-repository']?.persistentVolumeClaim).toEqual({ claimName: 'old-postgres-backup', readOnly: true });
    expect(volumes.pgbackrest?.configMap?.items.map((i) => i.key)).toEqual(['pgbackrest.conf', 'restore.conf']);
    expect(container.env.find((e) => e.name === 'PGBACKREST_STANZA')?.value).toBe('demo');
    expect(container.envFrom).toEqual([{ secretRef: { name: 's3-keys' } }, { prefix: 'HYPHAE_RESTORE_', secretRef: { name: 'old-keys' } }]);
  });

  it('leaves the repository volume out when backups go to object storage', () => {
    const { pod } = build({ backup: { enabled: true, pgbackrest: { 'repo1-type': 's3' } } });
    expect(pod.volumes.map((v) => v.name)).not.toContain('backup-repository');
  });

  it('rolls the pods when the settings change', () => {
    const hash = (postgres: Record<string, unknown>): string =>
      (build(postgres).sts.spec as { template: { metadata: { annotations: Record<string, string> } } }).template.metadata.annotations['hyphae.dev/config-hash'] ?? '';
    expect(hash({ instances: 3 })).toBe(hash({ instances: 3 }));
    expect(hash({ instances: 3, backup: { enabled: true } })).not.toBe(hash({ instances: 3 }));
  });
});
