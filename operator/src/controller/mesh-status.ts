// The HyphaeMesh status as a pure function of what the operator observes: the live owned
// objects (their status written by the kubelet/controllers), missing kinds and apply errors.
import type { Condition, HyphaeMeshSpec, HyphaeMeshStatus } from '../crd/hyphae-mesh-schema.js';
import type { KubeObject } from '../kube/kube-object.js';
import { canonicalJson, selectorLabels, selectorString } from '../desired/common.js';
import type { HyphaeMesh } from '../desired/hyphae-mesh.js';

export const CONDITION_TYPES = [
  'Ready',
  'Progressing',
  'Degraded',
  'DatabaseReady',
  'NatsReady',
  'ApiReady',
  'WorkersReady',
  'OptionalKindsAvailable',
] as const;
export type ConditionType = (typeof CONDITION_TYPES)[number];

export interface ObservedState {
  apiDeployment?: KubeObject;
  workerDeployment?: KubeObject;
  postgresStatefulSet?: KubeObject;
  natsStatefulSet?: KubeObject;
  cnpgCluster?: KubeObject;
  missingKinds: string[];
  /** Message of the last apply failure in this reconcile, if any. */
  applyError?: string;
}

interface Verdict {
  ok: boolean;
  reason: string;
  message: string;
}

type WorkloadStatus = {
  observedGeneration?: number;
  replicas?: number;
  readyReplicas?: number;
  updatedReplicas?: number;
  availableReplicas?: number;
  readyInstances?: number;
};

function workloadReady(obj: KubeObject | undefined, what: string): Verdict {
  if (!obj) return { ok: false, reason: 'NotCreated', message: `${what} does not exist yet` };
  const want = (obj.spec as { replicas?: number } | undefined)?.replicas ?? 1;
  const st = (obj.status ?? {}) as WorkloadStatus;
  const ready = st.readyReplicas ?? 0;
  if ((st.observedGeneration ?? 0) < (obj.metadata.generation ?? 0)) {
    return { ok: false, reason: 'RollingOut', message: `${what} generation ${obj.metadata.generation} not yet observed` };
  }
  if (ready < want || (st.updatedReplicas ?? want) < want) {
    return { ok: false, reason: 'ReplicasNotReady', message: `${what}: ${ready}/${want} replicas ready` };
  }
  return { ok: true, reason: 'ReplicasReady', message: `${what}: ${ready}/${want} replicas ready` };
}

function databaseVerdict(spec: HyphaeMeshSpec, o: ObservedState): Verdict {
  switch (spec.postgres.mode) {
    case 'external':
      return { ok: true, reason: 'External', message: `external database from Secret ${spec.postgres.secretRef?.name ?? ''}` };
    case 'managed':
      return workloadReady(o.postgresStatefulSet, 'postgres StatefulSet');
    case 'cnpg': {
      if (o.missingKinds.includes('Cluster.postgresql.cnpg.io')) {
        return { ok: false, reason: 'KindMissing', message: 'CloudNativePG is not installed (no postgresql.cnpg.io/v1 Cluster)' };
      }
      if (!o.cnpgCluster) return { ok: false, reason: 'NotCreated', message: 'CNPG Cluster does not exist yet' };
      const want = spec.postgres.instances ?? 1;
      const ready = ((o.cnpgCluster.status ?? {}) as WorkloadStatus).readyInstances ?? 0;
      return ready >= want
        ? { ok: true, reason: 'ClusterReady', message: `CNPG Cluster: ${ready}/${want} instances ready` }
        : { ok: false, reason: 'InstancesNotReady', message: `CNPG Cluster: ${ready}/${want} instances ready` };
    }
  }
}

function natsVerdict(spec: HyphaeMeshSpec, o: ObservedState): Verdict {
  if (spec.nats.mode === 'external') return { ok: true, reason: 'External', message: `external NATS at ${spec.nats.url ?? ''}` };
  return workloadReady(o.natsStatefulSet, 'nats StatefulSet');
}

function cond(type: ConditionType, v: Verdict, generation: number, invert = false): Omit<Condition, 'lastTransitionTime'> {
  return { type, status: v.ok !== invert ? 'True' : 'False', reason: v.reason, message: v.message, observedGeneration: generation };
}

export function desiredStatus(mesh: HyphaeMesh, spec: HyphaeMeshSpec, o: ObservedState): Omit<HyphaeMeshStatus, 'conditions'> & {
  conditions: Array<Omit<Condition, 'lastTransitionTime'>>;
} {
  const gen = mesh.metadata.generation ?? 0;
  const parts: Array<[ConditionType, Verdict]> = [
    ['DatabaseReady', databaseVerdict(spec, o)],
    ['NatsReady', natsVerdict(spec, o)],
    ['ApiReady', workloadReady(o.apiDeployment, 'api Deployment')],
    ['WorkersReady', workloadReady(o.workerDeployment, 'worker Deployment')],
  ];
  const kinds: Verdict =
    o.missingKinds.length === 0
      ? { ok: true, reason: 'AllAvailable', message: 'every kind the spec needs is served' }
      : { ok: false, reason: 'KindsMissing', message: `cluster lacks ${o.missingKinds.join(', ')}` };
  const blocked = o.missingKinds.includes('Cluster.postgresql.cnpg.io');
  const degraded: Verdict = o.applyError
    ? { ok: true, reason: 'ReconcileError', message: o.applyError }
    : blocked
      ? { ok: true, reason: 'DependencyMissing', message: kinds.message }
      : { ok: false, reason: 'AsExpected', message: 'no errors' };
  const notReady = parts.filter(([, v]) => !v.ok).map(([t]) => t);
  const ready: Verdict =
    notReady.length === 0 && !degraded.ok
      ? { ok: true, reason: 'AllComponentsReady', message: 'all components are ready' }
      : { ok: false, reason: degraded.ok ? 'Degraded' : 'ComponentsNotReady', message: notReady.length ? `waiting for ${notReady.join(', ')}` : degraded.message };
  const progressing: Verdict =
    !ready.ok && !degraded.ok
      ? { ok: true, reason: 'RollingOut', message: ready.message }
      : { ok: false, reason: ready.ok ? 'Stable' : 'Blocked', message: ready.ok ? 'rollout complete' : degraded.message };

  const api = (o.apiDeployment?.status ?? {}) as WorkloadStatus;
  const workers = (o.workerDeployment?.status ?? {}) as WorkloadStatus;
  return {
    observedGeneration: gen,
    conditions: [
      cond('Ready', ready, gen),
      cond('Progressing', progressing, gen),
      cond('Degraded', degraded, gen),
      ...parts.map(([t, v]) => cond(t, v, gen)),
      cond('OptionalKindsAvailable', kinds, gen),
    ],
    api: { replicas: api.replicas ?? 0, readyReplicas: api.readyReplicas ?? 0, selector: selectorString(selectorLabels(mesh, 'api')) },
    workers: { replicas: workers.replicas ?? 0, readyReplicas: workers.readyReplicas ?? 0 },
    missingKinds: o.missingKinds,
  };
}

/** Keep lastTransitionTime of conditions whose status did not change (the Kubernetes convention). */
export function withTransitionTimes(
  next: ReturnType<typeof desiredStatus>,
  previous: HyphaeMeshStatus | undefined,
  now: Date,
): HyphaeMeshStatus {
  const prev = new Map((previous?.conditions ?? []).map((c) => [c.type, c]));
  const stamp = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    ...next,
    conditions: next.conditions.map((c) => {
      const old = prev.get(c.type);
      return { ...c, lastTransitionTime: old && old.status === c.status ? old.lastTransitionTime : stamp };
    }),
  };
}

export function statusEqual(a: HyphaeMeshStatus | undefined, b: HyphaeMeshStatus): boolean {
  return a !== undefined && canonicalJson(a) === canonicalJson(b);
}

export function conditionOf(status: HyphaeMeshStatus | undefined, type: ConditionType): Condition | undefined {
  return status?.conditions?.find((c) => c.type === type);
}
