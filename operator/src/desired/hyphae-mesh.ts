// The HyphaeMesh object as the operator sees it, and the spec with every default filled in.
import type { KubeObject, ObjectMeta } from '../kube/kube-object.js';
import { applyDefaults } from '../crd/schema-builder.js';
import { specSchema } from '../crd/hyphae-mesh-schema.js';
import type { HyphaeMeshSpec, HyphaeMeshStatus } from '../crd/hyphae-mesh-schema.js';

export interface HyphaeMesh extends KubeObject {
  metadata: ObjectMeta & { namespace: string; uid: string };
  spec?: unknown;
  status?: HyphaeMeshStatus;
}

export function effectiveSpec(mesh: Pick<HyphaeMesh, 'spec'>): HyphaeMeshSpec {
  return applyDefaults<HyphaeMeshSpec>(specSchema.json, mesh.spec ?? {});
}
