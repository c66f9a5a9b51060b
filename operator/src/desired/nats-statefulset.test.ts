import { describe, expect, it } from 'vitest';
import { natsClientService, natsClusterService, natsRoutes, natsStatefulSet } from './nats-statefulset.js';
import { meshFixture, podSpecOf, restrictedViolations } from './test-fixtures.js';

describe('NATS StatefulSet and Services', () => {
  it('forms a 3-node cluster over the headless Service', () => {
    const { mesh, spec } = meshFixture();
    const s = natsStatefulSet(mesh, spec);
    expect((s.spec as { replicas: number; serviceName: string }).replicas).toBe(3);
    expect((s.spec as { serviceName: string }).serviceName).toBe('demo-nats-cluster');
    const args = (podSpecOf(s).containers[0] as unknown as { args: string[] }).args;
    expect(args).toContain(`--routes=${natsRoutes(mesh, 3)}`);
    expect(natsRoutes(mesh, 2)).toBe(
      'nats://demo-nats-0.demo-nats-cluster.team-a.svc:6222,nats://demo-nats-1.demo-nats-cluster.team-a.svc:6222',
    );
    expect(restrictedViolations(podSpecOf(s))).toEqual([]);
    expect(podSpecOf(s).securityContext).toMatchObject({ runAsUser: 1000, runAsNonRoot: true });
    expect((podSpecOf(s).containers[0] as unknown as { resources: unknown }).resources).toEqual({ requests: { cpu: '50m', memory: '64Mi' } });
  });

  it('has a client Service and a headless cluster Service publishing not-ready peers', () => {
    const { mesh } = meshFixture();
    expect(natsClientService(mesh).metadata.name).toBe('demo-nats');
    expect(natsClusterService(mesh).spec).toMatchObject({ clusterIP: 'None', publishNotReadyAddresses: true });
  });
});
