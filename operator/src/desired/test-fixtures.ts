// Shared fixtures for the desired-state tests.
import type { HyphaeMeshSpec } from '../crd/hyphae-mesh-schema.js';
import { effectiveSpec } from './hyphae-mesh.js';
import type { KubeObject } from '../kube/kube-object.js';
import type { HyphaeMesh } from './hyphae-mesh.js';

export function meshFixture(spec: Record<string, unknown> = {}): { mesh: HyphaeMesh; spec: HyphaeMeshSpec } {
  const mesh: HyphaeMesh = {
    apiVersion: 'hyphae.dev/v1alpha1',
    kind: 'HyphaeMesh',
    metadata: { name: 'demo', namespace: 'team-a', uid: '11111111-2222-3333-4444-555555555555', generation: 1 },
    spec,
  };
  return { mesh, spec: effectiveSpec(mesh) };
}

type Container = { securityContext?: Record<string, unknown>; volumeMounts?: Array<{ mountPath: string }> };
type PodSpec = { securityContext?: Record<string, unknown>; containers: Container[]; initContainers?: Container[] };

export function podSpecOf(obj: KubeObject): PodSpec {
  return (obj.spec as { template: { spec: PodSpec } }).template.spec;
}

/** Asserts the restricted Pod Security Standard fields; returns the problems found. */
export function restrictedViolations(pod: PodSpec): string[] {
  const out: string[] = [];
  const psc = pod.securityContext ?? {};
  if (psc.runAsNonRoot !== true) out.push('pod runAsNonRoot');
  if ((psc.seccompProfile as { type?: string } | undefined)?.type !== 'RuntimeDefault') out.push('pod seccomp');
  for (const c of [...pod.containers, ...(pod.initContainers ?? [])]) {
    const sc = c.securityContext ?? {};
    if (sc.allowPrivilegeEscalation !== false) out.push('allowPrivilegeEscalation');
    if (sc.readOnlyRootFilesystem !== true) out.push('readOnlyRootFilesystem');
    if (JSON.stringify((sc.capabilities as { drop?: string[] } | undefined)?.drop) !== '["ALL"]') out.push('drop ALL');
    if (!c.volumeMounts?.some((m) => m.mountPath === '/tmp')) out.push('/tmp emptyDir');
  }
  return out;
}
