// Names, labels, owner references and security settings shared by every desired object.
import { createHash } from 'node:crypto';
import { API_VERSION, KIND } from '../crd/hyphae-mesh-schema.js';
import type { HyphaeMeshSpec } from '../crd/hyphae-mesh-schema.js';
import type { KubeObject, OwnerReference } from '../kube/kube-object.js';
import type { HyphaeMesh } from './hyphae-mesh.js';

export const FIELD_MANAGER = 'hyphae-operator';
export const MANAGED_BY = 'hyphae-operator';
export const HASH_ANNOTATION = 'hyphae.dev/desired-hash';
export const CONFIG_HASH_ANNOTATION = 'hyphae.dev/config-hash';
export const MESH_LABEL = 'hyphae.dev/mesh';
export const MANAGED_BY_SELECTOR = `app.kubernetes.io/managed-by=${MANAGED_BY}`;
export const WORKER_PORT = 8788;
export const POSTGRES_PORT = 5432;
export const NATS_CLIENT_PORT = 4222;
export const NATS_CLUSTER_PORT = 6222;
export const NATS_MONITOR_PORT = 8222;
export const PATRONI_PORT = 8008;

export type Component = 'api' | 'worker' | 'postgres' | 'postgres-backup' | 'nats' | 'config';

export const names = {
  config: (m: HyphaeMesh): string => `${m.metadata.name}-config`,
  api: (m: HyphaeMesh): string => `${m.metadata.name}-api`,
  worker: (m: HyphaeMesh): string => `${m.metadata.name}-worker`,
  postgres: (m: HyphaeMesh): string => `${m.metadata.name}-postgres`,
  postgresReplicas: (m: HyphaeMesh): string => `${m.metadata.name}-postgres-ro`,
  /** Patroni keeps its cluster configuration in Endpoints of this name (its scope + "-config"). */
  patroniConfig: (m: HyphaeMesh): string => `${m.metadata.name}-postgres-config`,
  patroni: (m: HyphaeMesh): string => `${m.metadata.name}-patroni`,
  postgresBackup: (m: HyphaeMesh): string => `${m.metadata.name}-postgres-backup`,
  cnpgCluster: (m: HyphaeMesh): string => `${m.metadata.name}-pg`,
  nats: (m: HyphaeMesh): string => `${m.metadata.name}-nats`,
  natsCluster: (m: HyphaeMesh): string => `${m.metadata.name}-nats-cluster`,
};

/** A selector for one component's pods, as NetworkPolicy peers and PodDisruptionBudgets use it. */
export function podSelector(mesh: HyphaeMesh, component: Component): { matchLabels: Record<string, string> } {
  return { matchLabels: selectorLabels(mesh, component) };
}

export function selectorLabels(mesh: HyphaeMesh, component: Component): Record<string, string> {
  return {
    'app.kubernetes.io/name': 'hyphae',
    'app.kubernetes.io/instance': mesh.metadata.name,
    'app.kubernetes.io/component': component,
  };
}

export function labels(mesh: HyphaeMesh, component: Component): Record<string, string> {
  return { ...selectorLabels(mesh, component), 'app.kubernetes.io/managed-by': MANAGED_BY, [MESH_LABEL]: mesh.metadata.name };
}

/** "k=v,k=v", the form the scale subresource reports. */
export function selectorString(sel: Record<string, string>): string {
  return Object.entries(sel)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

export function ownerReference(mesh: HyphaeMesh): OwnerReference {
  return { apiVersion: API_VERSION, kind: KIND, name: mesh.metadata.name, uid: mesh.metadata.uid, controller: true, blockOwnerDeletion: true };
}

export function metadata(
  mesh: HyphaeMesh,
  name: string,
  component: Component,
  annotations?: Record<string, string>,
): KubeObject['metadata'] {
  const meta: KubeObject['metadata'] = {
    name,
    namespace: mesh.metadata.namespace,
    labels: labels(mesh, component),
    ownerReferences: [ownerReference(mesh)],
  };
  if (annotations && Object.keys(annotations).length > 0) meta.annotations = annotations;
  return meta;
}

export function image(spec: HyphaeMeshSpec): string {
  return `${spec.image.repository}:${spec.image.tag}`;
}

/** Restricted Pod Security Standard, pod level. */
export function podSecurityContext(uid: number): Record<string, unknown> {
  return { runAsNonRoot: true, runAsUser: uid, runAsGroup: uid, fsGroup: uid, seccompProfile: { type: 'RuntimeDefault' } };
}

/** Restricted Pod Security Standard, container level. */
export function containerSecurityContext(): Record<string, unknown> {
  return {
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    runAsNonRoot: true,
    capabilities: { drop: ['ALL'] },
    seccompProfile: { type: 'RuntimeDefault' },
  };
}

/** An environment variable read from one key of a Secret. */
export function secretEnv(name: string, secret: string, key: string): Record<string, unknown> {
  return { name, valueFrom: { secretKeyRef: { name: secret, key } } };
}

export const tmpVolume = { name: 'tmp', emptyDir: {} };
export const tmpMount = { name: 'tmp', mountPath: '/tmp' };

/** Where the PostgreSQL URL lives for each mode: pods read it from this Secret key. */
export function databaseUrlRef(mesh: HyphaeMesh, spec: HyphaeMeshSpec): { name: string; key: string } {
  switch (spec.postgres.mode) {
    case 'managed':
      return { name: names.postgres(mesh), key: 'url' };
    case 'cnpg':
      // CloudNativePG writes the application credentials, including a full URI, to <cluster>-app.
      return { name: `${names.cnpgCluster(mesh)}-app`, key: 'uri' };
    case 'external': {
      const ref = spec.postgres.secretRef;
      return { name: ref?.name ?? '', key: ref?.key ?? 'url' };
    }
  }
}

export function natsUrl(mesh: HyphaeMesh, spec: HyphaeMeshSpec): string {
  if (spec.nats.mode === 'external') return spec.nats.url ?? '';
  return `nats://${names.nats(mesh)}.${mesh.metadata.namespace}.svc:${NATS_CLIENT_PORT}`;
}

/** Stable short hash of a JSON value with sorted keys. */
export function stableHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 16);
}

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Drop undefined fields so the applied object only names fields we mean to own. */
export function compact<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
