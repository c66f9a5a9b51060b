// The least privilege the operator needs, as RBAC rules. The Helm chart renders these; a k8s
// test runs the operator under exactly these rules to prove they are sufficient.
import { patroniRules } from './desired/patroni-rbac.js';

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

const OWN = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];

/** Cluster-wide (or per watched namespace, as a Role): the HyphaeMesh API and the kinds it owns. */
export function operatorClusterRules(): PolicyRule[] {
  return [
    { apiGroups: ['hyphae.dev'], resources: ['hyphaemeshes'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['hyphae.dev'], resources: ['hyphaemeshes/status'], verbs: ['get', 'patch', 'update'] },
    // blockOwnerDeletion requires this under the OwnerReferencesPermissionEnforcement admission plugin.
    { apiGroups: ['hyphae.dev'], resources: ['hyphaemeshes/finalizers'], verbs: ['update'] },
    { apiGroups: [''], resources: ['configmaps', 'secrets', 'services', 'serviceaccounts', 'persistentvolumeclaims'], verbs: OWN },
    { apiGroups: ['apps'], resources: ['deployments', 'statefulsets'], verbs: OWN },
    { apiGroups: ['batch'], resources: ['cronjobs'], verbs: OWN },
    { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: OWN },
    // What the Role of each mesh's Patroni grants: Kubernetes lets the operator grant only what it holds.
    ...patroniRules(),
    { apiGroups: ['networking.k8s.io'], resources: ['ingresses', 'networkpolicies'], verbs: OWN },
    { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: OWN },
    { apiGroups: ['autoscaling'], resources: ['horizontalpodautoscalers'], verbs: OWN },
    { apiGroups: ['postgresql.cnpg.io'], resources: ['clusters'], verbs: OWN },
    { apiGroups: ['monitoring.coreos.com'], resources: ['servicemonitors'], verbs: OWN },
  ];
}

/** In the operator's own namespace only: the leader-election Lease. */
export function operatorLeaseRules(): PolicyRule[] {
  return [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] }];
}
