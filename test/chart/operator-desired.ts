// The objects the operator would create for the HyphaeMesh a chart rendering contains, computed
// with the operator's own desired-state functions (every optional kind assumed served).
import { desiredSet } from '../../operator/src/desired/desired-set.js';
import { effectiveSpec } from '../../operator/src/desired/hyphae-mesh.js';
import type { HyphaeMesh } from '../../operator/src/desired/hyphae-mesh.js';
import { OPTIONAL_TYPES, typeKey } from '../../operator/src/kube/resource-types.js';
import { findObject } from '../support/k8s/helm.js';
import type { RenderedObject } from '../support/k8s/helm.js';

export function operatorObjectsFor(rendered: readonly RenderedObject[], namespace = 'hyphae'): RenderedObject[] {
  const mesh = findObject(rendered, 'HyphaeMesh');
  if (!mesh) return [];
  const live = { ...mesh, metadata: { ...mesh.metadata, namespace, uid: '00000000-0000-4000-8000-000000000001' } } as unknown as HyphaeMesh;
  const available = new Set(OPTIONAL_TYPES.map(typeKey));
  return desiredSet(live, effectiveSpec(live), { postgresPassword: 'test-password', availableKinds: available }).objects as unknown as RenderedObject[];
}
