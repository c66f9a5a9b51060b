import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/kube-object.js';
import { contains, needsApply, parseQuantity, withDesiredHash } from './live-compare.js';

const desired = withDesiredHash({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'a', namespace: 'n', labels: { x: '1' } },
  spec: { replicas: 2, template: { spec: { containers: [{ name: 'c', resources: { limits: { cpu: '1000m', memory: '1Gi' } } }] } } },
});

function live(patch: (o: KubeObject) => void = () => undefined): KubeObject {
  const o = structuredClone(desired) as KubeObject & { spec: Record<string, unknown> };
  o.metadata.resourceVersion = '5';
  o.spec.strategy = { type: 'RollingUpdate' };
  (o.status as unknown) = { readyReplicas: 2 };
  patch(o);
  return o;
}

describe('needsApply', () => {
  it('is false when the live object holds everything we set, plus server defaults', () => {
    expect(needsApply(desired, live())).toBe(false);
  });
  it('is true when the object is missing, the hash differs, or a field we own drifted', () => {
    expect(needsApply(desired, undefined)).toBe(true);
    expect(needsApply(desired, live((o) => ((o.metadata.annotations ?? {})['hyphae.dev/desired-hash'] = 'old')))).toBe(true);
    expect(needsApply(desired, live((o) => ((o.spec as { replicas: number }).replicas = 5)))).toBe(true);
    expect(needsApply(desired, live((o) => (o.metadata.labels = {})))).toBe(true);
  });
  it('treats canonicalised quantities as equal', () => {
    expect(contains({ cpu: '1', memory: '1024Mi' }, { cpu: '1000m', memory: '1Gi' })).toBe(true);
    expect(contains({ cpu: '2' }, { cpu: '1000m' })).toBe(false);
    expect(parseQuantity('500m')).toBe(0.5);
    expect(parseQuantity('nope')).toBeUndefined();
  });
});
