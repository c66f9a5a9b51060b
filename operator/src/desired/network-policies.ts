// NetworkPolicies (ingress only): the API port is open to its clients; workers, PostgreSQL and
// NATS admit only the mesh's own pods. Egress is left open because its destinations depend on
// the mode (external database, NATS, embeddings URL) and every server side is already guarded.
import type { HyphaeMeshSpec } from '../crd/hyphae-mesh-schema.js';
import type { KubeObject } from '../kube/kube-object.js';
import { NATS_CLIENT_PORT, NATS_CLUSTER_PORT, PATRONI_PORT, POSTGRES_PORT, WORKER_PORT, metadata, names, podSelector } from './common.js';
import type { Component } from './common.js';
import { usesPatroni } from './postgres-topology.js';
import type { HyphaeMesh } from './hyphae-mesh.js';

interface IngressRule {
  from?: Array<Record<string, unknown>>;
  ports: Array<{ port: number; protocol: 'TCP' }>;
}

const tcp = (port: number): { port: number; protocol: 'TCP' } => ({ port, protocol: 'TCP' });

function policy(mesh: HyphaeMesh, name: string, component: Component, ingress: IngressRule[]): KubeObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: metadata(mesh, name, component),
    spec: { podSelector: podSelector(mesh, component), policyTypes: ['Ingress'], ingress },
  };
}

export function networkPolicies(mesh: HyphaeMesh, spec: HyphaeMeshSpec): KubeObject[] {
  // The gRPC port admits the same clients as the HTTP port.
  const apiPorts = [tcp(spec.api.port), ...(spec.api.grpcPort > 0 ? [tcp(spec.api.grpcPort)] : [])];
  if (!spec.networkPolicy.enabled) return [];
  const peer = (component: Component): Record<string, unknown> => ({ podSelector: podSelector(mesh, component) });
  const apiFrom = spec.networkPolicy.apiFrom ?? [];
  const out = [
    // Clients come through the Service, the Ingress controller or Prometheus: any source unless apiFrom narrows it.
    policy(mesh, names.api(mesh), 'api', [apiFrom.length > 0 ? { from: apiFrom, ports: apiPorts } : { ports: apiPorts }]),
    // Workers take their work from NATS; only the API pods may call their HTTP port.
    policy(mesh, names.worker(mesh), 'worker', [{ from: [peer('api')], ports: [tcp(WORKER_PORT)] }]),
  ];
  // The migrate init container runs in the API pods, so the API selector covers it too. Under
  // Patroni the instances also replicate from each other, ask each other's REST API in a leader
  // race, and the backup job reaches the primary.
  if (spec.postgres.mode === 'managed' && usesPatroni(spec)) {
    out.push(
      policy(mesh, names.postgres(mesh), 'postgres', [
        { from: [peer('api'), peer('postgres'), peer('postgres-backup')], ports: [tcp(POSTGRES_PORT)] },
        { from: [peer('postgres')], ports: [tcp(PATRONI_PORT)] },
      ]),
    );
  } else if (spec.postgres.mode === 'managed') {
    out.push(policy(mesh, names.postgres(mesh), 'postgres', [{ from: [peer('api')], ports: [tcp(POSTGRES_PORT)] }]));
  }
  if (spec.nats.mode === 'managed') {
    out.push(
      policy(mesh, names.nats(mesh), 'nats', [
        { from: [peer('api'), peer('worker')], ports: [tcp(NATS_CLIENT_PORT)] },
        { from: [peer('nats')], ports: [tcp(NATS_CLUSTER_PORT)] },
      ]),
    );
  }
  return out;
}
