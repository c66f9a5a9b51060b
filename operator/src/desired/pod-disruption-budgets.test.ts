import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/kube-object.js';
import { natsMaxUnavailable, podDisruptionBudgets } from './pod-disruption-budgets.js';
import { meshFixture } from './test-fixtures.js';

const budgets = (spec: Record<string, unknown>): Record<string, KubeObject> => {
  const { mesh, spec: s } = meshFixture(spec);
  return Object.fromEntries(podDisruptionBudgets(mesh, s).map((o) => [o.metadata.name, o]));
};

describe('podDisruptionBudgets', () => {
  it('covers the replicated API and NATS by default, not the single worker or PostgreSQL', () => {
    const b = budgets({});
    expect(Object.keys(b).sort()).toEqual(['demo-api', 'demo-nats']);
    expect(b['demo-api']).toMatchObject({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { namespace: 'team-a', ownerReferences: [{ kind: 'HyphaeMesh', name: 'demo', controller: true }] },
      spec: {
        maxUnavailable: 1,
        selector: { matchLabels: { 'app.kubernetes.io/instance': 'demo', 'app.kubernetes.io/component': 'api' } },
        unhealthyPodEvictionPolicy: 'AlwaysAllow',
      },
    });
    expect(b['demo-nats']?.spec).toMatchObject({ maxUnavailable: 1, selector: { matchLabels: { 'app.kubernetes.io/component': 'nats' } } });
  });

  it('lets one PostgreSQL instance at a time go under Patroni, none of a single instance', () => {
    expect(budgets({ postgres: { instances: 3 } })['demo-postgres']?.spec).toMatchObject({ maxUnavailable: 1, selector: { matchLabels: { 'app.kubernetes.io/component': 'postgres' } } });
    expect(budgets({ postgres: { backup: { enabled: true } } })['demo-postgres']).toBeUndefined();
  });

  it('adds the API budget for autoscaling even at one replica, and the workers above one replica', () => {
    expect(Object.keys(budgets({ api: { replicas: 1 } }))).toEqual(['demo-nats']);
    expect(Object.keys(budgets({ api: { replicas: 1 }, autoscaling: { enabled: true, minReplicas: 1 } }))).toContain('demo-api');
    expect(budgets({ workers: { replicas: 3 } })['demo-worker']?.spec).toMatchObject({
      maxUnavailable: 1,
      selector: { matchLabels: { 'app.kubernetes.io/component': 'worker' } },
    });
  });

  it('keeps a NATS majority up and leaves out NATS that is external or single', () => {
    expect([1, 2, 3, 4, 5, 7, 9].map(natsMaxUnavailable)).toEqual([1, 1, 1, 1, 2, 3, 4]);
    for (const n of [3, 5, 7, 9]) expect(n - natsMaxUnavailable(n)).toBeGreaterThan(n / 2);
    expect(budgets({ nats: { replicas: 5 } })['demo-nats']?.spec).toMatchObject({ maxUnavailable: 2 });
    expect(budgets({ nats: { replicas: 1 } })['demo-nats']).toBeUndefined();
    expect(budgets({ nats: { mode: 'external', url: 'nats://x:4222' } })['demo-nats']).toBeUndefined();
  });
});
