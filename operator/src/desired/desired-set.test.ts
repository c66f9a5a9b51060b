import { describe, expect, it } from 'vitest';
import { CNPG_CLUSTER, SERVICE_MONITOR, typeKey } from '../kube/resource-types.js';
import { desiredSet } from './desired-set.js';
import { meshFixture } from './test-fixtures.js';

const all = new Set([typeKey(CNPG_CLUSTER), typeKey(SERVICE_MONITOR)]);
const kinds = (objs: Array<{ kind: string; metadata: { name: string } }>): string[] => objs.map((o) => `${o.kind}/${o.metadata.name}`).sort();

describe('desiredSet', () => {
  it('managed everything by default', () => {
    const { mesh, spec } = meshFixture();
    const d = desiredSet(mesh, spec, { postgresPassword: 'pw', availableKinds: all });
    expect(kinds(d.objects)).toEqual(
      [
        'ConfigMap/demo-config',
        'Deployment/demo-api',
        'Deployment/demo-worker',
        'NetworkPolicy/demo-api',
        'NetworkPolicy/demo-nats',
        'NetworkPolicy/demo-postgres',
        'NetworkPolicy/demo-worker',
        'PodDisruptionBudget/demo-api',
        'PodDisruptionBudget/demo-nats',
        'Secret/demo-postgres',
        'Service/demo-api',
        'Service/demo-nats',
        'Service/demo-nats-cluster',
        'Service/demo-postgres',
        'StatefulSet/demo-nats',
        'StatefulSet/demo-postgres',
      ].sort(),
    );
    expect(d.missingKinds).toEqual([]);
    for (const o of d.objects) expect(o.metadata.ownerReferences?.[0]?.uid).toBe(mesh.metadata.uid);
    // Policies are applied before the pods they guard.
    const index = (kind: string): number => d.objects.findIndex((o) => o.kind === kind);
    expect(index('NetworkPolicy')).toBeLessThan(index('StatefulSet'));
  });

  it('external dependencies create no data stores; optional features add their objects', () => {
    const { mesh, spec } = meshFixture({
      postgres: { mode: 'external', secretRef: { name: 'db' } },
      nats: { mode: 'external', url: 'nats://x:4222' },
      autoscaling: { enabled: true },
      ingress: { enabled: true, host: 'h.example.com' },
      monitoring: { serviceMonitor: { enabled: true } },
    });
    const d = desiredSet(mesh, spec, { postgresPassword: 'pw', availableKinds: all });
    expect(kinds(d.objects)).toEqual(
      [
        'ConfigMap/demo-config',
        'Deployment/demo-api',
        'Deployment/demo-worker',
        'NetworkPolicy/demo-api',
        'NetworkPolicy/demo-worker',
        'PodDisruptionBudget/demo-api',
        'Service/demo-api',
        'HorizontalPodAutoscaler/demo-api',
        'Ingress/demo-api',
        'ServiceMonitor/demo-api',
      ].sort(),
    );
  });

  it('runs PostgreSQL under Patroni with its RBAC, settings, Services and, with backups, the repository claim and CronJob', () => {
    const { mesh, spec } = meshFixture({ postgres: { instances: 3, backup: { enabled: true } } });
    const d = desiredSet(mesh, spec, { postgresPassword: 'pw', availableKinds: all });
    const postgres = d.objects.filter((o) => o.metadata.labels?.['app.kubernetes.io/component']?.startsWith('postgres'));
    expect(kinds(postgres)).toEqual(
      [
        'ConfigMap/demo-patroni',
        'CronJob/demo-postgres-backup',
        'NetworkPolicy/demo-postgres',
        'PersistentVolumeClaim/demo-postgres-backup',
        'PodDisruptionBudget/demo-postgres',
        'Role/demo-patroni',
        'RoleBinding/demo-patroni',
        'Secret/demo-postgres',
        'Service/demo-postgres',
        'Service/demo-postgres-config',
        'Service/demo-postgres-ro',
        'ServiceAccount/demo-patroni',
        'StatefulSet/demo-postgres',
      ].sort(),
    );
    // The Role exists before its binding, and everything the pods mount or run as before the pods.
    const index = (kind: string): number => d.objects.findIndex((o) => o.kind === kind);
    for (const before of ['ServiceAccount', 'Role', 'ConfigMap', 'PersistentVolumeClaim']) expect(index(before)).toBeLessThan(index('StatefulSet'));
    expect(index('Role')).toBeLessThan(index('RoleBinding'));
    // Only the repository claim outlives the mesh.
    expect(d.objects.filter((o) => o.metadata.ownerReferences === undefined).map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(['PersistentVolumeClaim/demo-postgres-backup']);
  });

  it('reports kinds the cluster lacks instead of producing them', () => {
    const { mesh, spec } = meshFixture({ postgres: { mode: 'cnpg', instances: 2 }, monitoring: { serviceMonitor: { enabled: true } } });
    const d = desiredSet(mesh, spec, { postgresPassword: 'pw', availableKinds: new Set() });
    expect(d.missingKinds).toEqual(['Cluster.postgresql.cnpg.io', 'ServiceMonitor.monitoring.coreos.com']);
    expect(d.objects.some((o) => o.kind === 'Cluster' || o.kind === 'ServiceMonitor')).toBe(false);
  });
});
