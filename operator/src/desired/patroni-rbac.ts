// What Patroni may do with the Kubernetes API, its DCS: the Endpoints it keeps the leader lock,
// configuration and synchronous state in, and its own pods' labels and status annotations. A Role
// in the mesh's namespace, bound to a ServiceAccount only the PostgreSQL pods use.
import type { KubeObject } from '../kube/kube-object.js';
import type { PolicyRule } from '../rbac.js';
import { metadata, names } from './common.js';
import type { HyphaeMesh } from './hyphae-mesh.js';

/** Also held by the operator: Kubernetes lets it grant only what it has itself (operator/src/rbac.ts). */
export function patroniRules(): PolicyRule[] {
  return [
    { apiGroups: [''], resources: ['endpoints'], verbs: ['get', 'list', 'watch', 'create', 'patch'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'patch'] },
  ];
}

export function patroniServiceAccount(mesh: HyphaeMesh): KubeObject {
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: metadata(mesh, names.patroni(mesh), 'postgres'), automountServiceAccountToken: false };
}

export function patroniRole(mesh: HyphaeMesh): KubeObject {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: metadata(mesh, names.patroni(mesh), 'postgres'), rules: patroniRules() };
}

export function patroniRoleBinding(mesh: HyphaeMesh): KubeObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: metadata(mesh, names.patroni(mesh), 'postgres'),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: names.patroni(mesh) },
    subjects: [{ kind: 'ServiceAccount', name: names.patroni(mesh), namespace: mesh.metadata.namespace }],
  };
}
