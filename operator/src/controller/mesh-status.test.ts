import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/kube-object.js';
import { meshFixture } from '../desired/test-fixtures.js';
import { conditionOf, desiredStatus, statusEqual, withTransitionTimes } from './mesh-status.js';
import type { ObservedState } from './mesh-status.js';

function workload(kind: string, replicas: number, ready: number, generation = 1, observed = generation): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind,
    metadata: { name: 'x', generation },
    spec: { replicas },
    status: { observedGeneration: observed, replicas, readyReplicas: ready, updatedReplicas: replicas },
  };
}

const allReady = (): ObservedState => ({
  apiDeployment: workload('Deployment', 2, 2),
  workerDeployment: workload('Deployment', 1, 1),
  postgresStatefulSet: workload('StatefulSet', 1, 1),
  natsStatefulSet: workload('StatefulSet', 3, 3),
  missingKinds: [],
});

describe('desiredStatus', () => {
  it('is Ready when every component is ready, with observedGeneration on each condition', () => {
    const { mesh, spec } = meshFixture();
    mesh.metadata.generation = 4;
    const st = withTransitionTimes(desiredStatus(mesh, spec, allReady()), undefined, new Date());
    expect(conditionOf(st, 'Ready')?.status).toBe('True');
    expect(conditionOf(st, 'Progressing')?.status).toBe('False');
    expect(conditionOf(st, 'Degraded')?.status).toBe('False');
    expect(st.conditions?.every((c) => c.observedGeneration === 4)).toBe(true);
    expect(st.observedGeneration).toBe(4);
    expect(st.api).toEqual({ replicas: 2, readyReplicas: 2, selector: 'app.kubernetes.io/name=hyphae,app.kubernetes.io/instance=demo,app.kubernetes.io/component=api' });
  });

  it('is Progressing while a workload rolls out or lacks ready replicas', () => {
    const { mesh, spec } = meshFixture();
    const o = allReady();
    o.natsStatefulSet = workload('StatefulSet', 3, 1);
    o.apiDeployment = workload('Deployment', 2, 2, 3, 2);
    const st = withTransitionTimes(desiredStatus(mesh, spec, o), undefined, new Date());
    expect(conditionOf(st, 'Ready')).toMatchObject({ status: 'False', message: 'waiting for NatsReady, ApiReady' });
    expect(conditionOf(st, 'Progressing')?.status).toBe('True');
    expect(conditionOf(st, 'NatsReady')?.reason).toBe('ReplicasNotReady');
    expect(conditionOf(st, 'ApiReady')?.reason).toBe('RollingOut');
  });

  it('reports a missing CNPG as Degraded and in OptionalKindsAvailable', () => {
    const { mesh, spec } = meshFixture({ postgres: { mode: 'cnpg', instances: 2 } });
    const st = withTransitionTimes(desiredStatus(mesh, spec, { ...allReady(), missingKinds: ['Cluster.postgresql.cnpg.io'] }), undefined, new Date());
    expect(conditionOf(st, 'DatabaseReady')?.reason).toBe('KindMissing');
    expect(conditionOf(st, 'Degraded')?.status).toBe('True');
    expect(conditionOf(st, 'OptionalKindsAvailable')?.status).toBe('False');
  });

  it('keeps lastTransitionTime while a status holds, so an unchanged state compares equal', () => {
    const { mesh, spec } = meshFixture();
    const first = withTransitionTimes(desiredStatus(mesh, spec, allReady()), undefined, new Date('2026-01-01T00:00:00Z'));
    const again = withTransitionTimes(desiredStatus(mesh, spec, allReady()), first, new Date('2026-02-01T00:00:00Z'));
    expect(statusEqual(first, again)).toBe(true);
    const o = allReady();
    o.workerDeployment = workload('Deployment', 1, 0);
    const changed = withTransitionTimes(desiredStatus(mesh, spec, o), first, new Date('2026-02-01T00:00:00Z'));
    expect(conditionOf(changed, 'WorkersReady')?.lastTransitionTime).toBe('2026-02-01T00:00:00Z');
    expect(conditionOf(changed, 'DatabaseReady')?.lastTransitionTime).toBe('2026-01-01T00:00:00Z');
  });
});
