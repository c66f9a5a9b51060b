// The Kubernetes kinds the operator reads or writes, and how their REST paths are formed.

export interface ResourceType {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
}

export const apiVersionOf = (rt: ResourceType): string => (rt.group === '' ? rt.version : `${rt.group}/${rt.version}`);

export function groupVersionPath(rt: Pick<ResourceType, 'group' | 'version'>): string {
  return rt.group === '' ? `/api/${rt.version}` : `/apis/${rt.group}/${rt.version}`;
}

export function collectionPath(rt: ResourceType, namespace?: string): string {
  const ns = rt.namespaced && namespace !== undefined ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${groupVersionPath(rt)}${ns}/${rt.plural}`;
}

export function objectPath(rt: ResourceType, namespace: string | undefined, name: string): string {
  return `${collectionPath(rt, namespace)}/${encodeURIComponent(name)}`;
}

const t = (group: string, version: string, kind: string, plural: string, namespaced = true): ResourceType => ({
  group,
  version,
  kind,
  plural,
  namespaced,
});

export const HYPHAE_MESH = t('hyphae.dev', 'v1alpha1', 'HyphaeMesh', 'hyphaemeshes');
export const DEPLOYMENT = t('apps', 'v1', 'Deployment', 'deployments');
export const STATEFUL_SET = t('apps', 'v1', 'StatefulSet', 'statefulsets');
export const SERVICE = t('', 'v1', 'Service', 'services');
export const SECRET = t('', 'v1', 'Secret', 'secrets');
export const CONFIG_MAP = t('', 'v1', 'ConfigMap', 'configmaps');
export const SERVICE_ACCOUNT = t('', 'v1', 'ServiceAccount', 'serviceaccounts');
export const PVC = t('', 'v1', 'PersistentVolumeClaim', 'persistentvolumeclaims');
export const ROLE = t('rbac.authorization.k8s.io', 'v1', 'Role', 'roles');
export const ROLE_BINDING = t('rbac.authorization.k8s.io', 'v1', 'RoleBinding', 'rolebindings');
export const CRON_JOB = t('batch', 'v1', 'CronJob', 'cronjobs');
export const INGRESS = t('networking.k8s.io', 'v1', 'Ingress', 'ingresses');
export const NETWORK_POLICY = t('networking.k8s.io', 'v1', 'NetworkPolicy', 'networkpolicies');
export const PDB = t('policy', 'v1', 'PodDisruptionBudget', 'poddisruptionbudgets');
export const HPA = t('autoscaling', 'v2', 'HorizontalPodAutoscaler', 'horizontalpodautoscalers');
export const CNPG_CLUSTER = t('postgresql.cnpg.io', 'v1', 'Cluster', 'clusters');
export const SERVICE_MONITOR = t('monitoring.coreos.com', 'v1', 'ServiceMonitor', 'servicemonitors');
export const LEASE = t('coordination.k8s.io', 'v1', 'Lease', 'leases');
export const CRD = t('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition', 'customresourcedefinitions', false);

/** Every kind the operator creates, in apply order (config and data stores before their users). */
export const OWNED_TYPES: readonly ResourceType[] = [
  CONFIG_MAP,
  SECRET,
  SERVICE_ACCOUNT,
  ROLE,
  ROLE_BINDING,
  NETWORK_POLICY,
  SERVICE,
  PVC,
  STATEFUL_SET,
  CNPG_CLUSTER,
  DEPLOYMENT,
  CRON_JOB,
  PDB,
  HPA,
  INGRESS,
  SERVICE_MONITOR,
];

/** Kinds that come from add-ons (CRDs) a cluster may not have. */
export const OPTIONAL_TYPES: readonly ResourceType[] = [CNPG_CLUSTER, SERVICE_MONITOR];

export function typeKey(rt: Pick<ResourceType, 'group' | 'kind'>): string {
  return rt.group === '' ? rt.kind : `${rt.kind}.${rt.group}`;
}

/** The typeKey of an object's kind, from its apiVersion ("apps/v1" → group "apps"). */
export function typeKeyOf(obj: { apiVersion: string; kind: string }): string {
  const slash = obj.apiVersion.indexOf('/');
  return typeKey({ group: slash < 0 ? '' : obj.apiVersion.slice(0, slash), kind: obj.kind });
}
