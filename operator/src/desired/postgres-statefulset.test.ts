import { describe, expect, it } from 'vitest';
import { postgresService, postgresStatefulSet } from './postgres-statefulset.js';
import { meshFixture, podSpecOf, restrictedViolations } from './test-fixtures.js';

describe('postgres StatefulSet and Service', () => {
  it('runs pgvector with a PVC of the requested size and class', () => {
    const { mesh, spec } = meshFixture({ postgres: { storage: { size: '50Gi', storageClassName: 'fast' } } });
    const s = postgresStatefulSet(mesh, spec);
    const st = s.spec as { serviceName: string; volumeClaimTemplates: Array<{ spec: Record<string, unknown> }> };
    expect(st.serviceName).toBe('demo-postgres');
    expect(st.volumeClaimTemplates[0]?.spec).toEqual({
      accessModes: ['ReadWriteOnce'],
      storageClassName: 'fast',
      resources: { requests: { storage: '50Gi' } },
    });
    expect((podSpecOf(s).containers[0] as unknown as { image: string }).image).toMatch(/^ghcr\.io\/hyphae-dev\/postgres:/);
    expect((podSpecOf(s).containers[0] as unknown as { args?: string[] }).args).toBeUndefined();
    expect(restrictedViolations(podSpecOf(s))).toEqual([]);
    expect(podSpecOf(s).securityContext).toMatchObject({ runAsUser: 999, fsGroup: 999 });
    expect((podSpecOf(s).containers[0] as unknown as { resources: unknown }).resources).toEqual({ requests: { cpu: '250m', memory: '512Mi' } });
  });

  it('is governed by a headless Service', () => {
    const { mesh, spec } = meshFixture();
    expect((postgresService(mesh, spec).spec as { clusterIP: string }).clusterIP).toBe('None');
  });

  it('passes spec.postgres.parameters to postgres as -c settings', () => {
    const { mesh, spec } = meshFixture({ postgres: { parameters: { shared_buffers: '2GB', maintenance_work_mem: '1GB' } } });
    const container = podSpecOf(postgresStatefulSet(mesh, spec)).containers[0] as unknown as { args: string[] };
    expect(container.args).toEqual(['postgres', '-c', 'shared_buffers=2GB', '-c', 'maintenance_work_mem=1GB']);
  });
});
