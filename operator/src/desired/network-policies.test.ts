import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/kube-object.js';
import { networkPolicies } from './network-policies.js';
import { meshFixture } from './test-fixtures.js';

type Rule = { from?: Array<Record<string, unknown>>; ports: Array<{ port: number; protocol: string }> };
type PolicySpec = { podSelector: { matchLabels: Record<string, string> }; policyTypes: string[]; ingress: Rule[]; egress?: unknown };

const policies = (spec: Record<string, unknown> = {}): Record<string, PolicySpec> => {
  const { mesh, spec: s } = meshFixture(spec);
  return Object.fromEntries(networkPolicies(mesh, s).map((o: KubeObject) => [o.metadata.name, o.spec as PolicySpec]));
};
const pods = (component: string): Record<string, unknown> => ({
  podSelector: { matchLabels: { 'app.kubernetes.io/name': 'hyphae', 'app.kubernetes.io/instance': 'demo', 'app.kubernetes.io/component': component } },
});

describe('networkPolicies', () => {
  it('guards each managed component, ingress only, selecting its own pods', () => {
    const p = policies();
    expect(Object.keys(p).sort()).toEqual(['demo-api', 'demo-nats', 'demo-postgres', 'demo-worker']);
    for (const [name, spec] of Object.entries(p)) {
      expect(spec.policyTypes, name).toEqual(['Ingress']);
      expect(spec.egress, name).toBeUndefined();
      expect(spec.podSelector.matchLabels['app.kubernetes.io/component'], name).toBe(name.replace('demo-', ''));
    }
  });

  it('opens the API ports (HTTP and gRPC) to any source, or only to apiFrom when given', () => {
    expect(policies()['demo-api']?.ingress).toEqual([{ ports: [{ port: 8787, protocol: 'TCP' }, { port: 50051, protocol: 'TCP' }] }]);
    const ingressNs = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } };
    expect(policies({ api: { port: 9000, grpcPort: 0 }, networkPolicy: { apiFrom: [ingressNs] } })['demo-api']?.ingress).toEqual([
      { from: [ingressNs], ports: [{ port: 9000, protocol: 'TCP' }] },
    ]);
  });

  it('under Patroni also admits the instances to each other (replication, REST API) and the backup job to PostgreSQL', () => {
    expect(policies({ postgres: { instances: 3 } })['demo-postgres']?.ingress).toEqual([
      { from: [pods('api'), pods('postgres'), pods('postgres-backup')], ports: [{ port: 5432, protocol: 'TCP' }] },
      { from: [pods('postgres')], ports: [{ port: 8008, protocol: 'TCP' }] },
    ]);
  });

  it('admits only the API pods to workers and PostgreSQL', () => {
    const p = policies();
    expect(p['demo-worker']?.ingress).toEqual([{ from: [pods('api')], ports: [{ port: 8788, protocol: 'TCP' }] }]);
    expect(p['demo-postgres']?.ingress).toEqual([{ from: [pods('api')], ports: [{ port: 5432, protocol: 'TCP' }] }]);
  });

  it('admits API and worker pods to the NATS client port and only NATS peers to the cluster port', () => {
    expect(policies()['demo-nats']?.ingress).toEqual([
      { from: [pods('api'), pods('worker')], ports: [{ port: 4222, protocol: 'TCP' }] },
      { from: [pods('nats')], ports: [{ port: 6222, protocol: 'TCP' }] },
    ]);
  });

  it('leaves out data stores it does not run, and everything when disabled', () => {
    const external = policies({ postgres: { mode: 'external', secretRef: { name: 'db' } }, nats: { mode: 'external', url: 'nats://x:4222' } });
    expect(Object.keys(external).sort()).toEqual(['demo-api', 'demo-worker']);
    expect(Object.keys(policies({ postgres: { mode: 'cnpg', instances: 2 } })).sort()).toEqual(['demo-api', 'demo-nats', 'demo-worker']);
    expect(policies({ networkPolicy: { enabled: false } })).toEqual({});
  });
});
