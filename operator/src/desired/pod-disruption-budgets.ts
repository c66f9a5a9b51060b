// PodDisruptionBudgets: voluntary disruptions (node drains) take at most a safe number of pods
// of each replicated component at once.
import type { HyphaeMeshSpec } from '../crd/hyphae-mesh-schema.js';
import type { KubeObject } from '../kube/kube-object.js';
import { metadata, names, podSelector } from './common.js';
import type { Component } from './common.js';
import { postgresInstances, usesPatroni } from './postgres-topology.js';
import type { HyphaeMesh } from './hyphae-mesh.js';

/** The most NATS peers that may be down while a majority (a quorum, should JetStream be enabled) stays up; at least 1 so drains proceed. */
export function natsMaxUnavailable(replicas: number): number {
  return Math.max(1, Math.floor((replicas - 1) / 2));
}

function pdb(mesh: HyphaeMesh, name: string, component: Component, maxUnavailable: number): KubeObject {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: metadata(mesh, name, component),
    spec: {
      maxUnavailable,
      selector: podSelector(mesh, component),
      // A pod that is not ready serves nothing: evicting it must not block a drain.
      unhealthyPodEvictionPolicy: 'AlwaysAllow',
    },
  };
}

/**
 * One budget per component with more than one pod. A single managed PostgreSQL instance gets none:
 * a budget could only block every drain of its node forever, never keep it serving. Under Patroni
 * one instance at a time may go; a drained primary fails over to a synchronous replica.
 */
export function podDisruptionBudgets(mesh: HyphaeMesh, spec: HyphaeMeshSpec): KubeObject[] {
  const out: KubeObject[] = [];
  if (spec.autoscaling.enabled || spec.api.replicas > 1) out.push(pdb(mesh, names.api(mesh), 'api', 1));
  if (spec.workers.replicas > 1) out.push(pdb(mesh, names.worker(mesh), 'worker', 1));
  if (usesPatroni(spec) && postgresInstances(spec) > 1) out.push(pdb(mesh, names.postgres(mesh), 'postgres', 1));
  if (spec.nats.mode === 'managed' && spec.nats.replicas > 1) out.push(pdb(mesh, names.nats(mesh), 'nats', natsMaxUnavailable(spec.nats.replicas)));
  return out;
}
