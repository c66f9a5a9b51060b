// CloudNativePG Cluster for postgres.mode=cnpg; CNPG then owns failover, backups and the app Secret.
import type { HyphaeMeshSpec } from '../crd/hyphae-mesh-schema.js';
import type { KubeObject } from '../kube/kube-object.js';
import { compact, metadata, names } from './common.js';
import { POSTGRES_DB, POSTGRES_USER } from './postgres-secret.js';
import type { HyphaeMesh } from './hyphae-mesh.js';

export function cnpgCluster(mesh: HyphaeMesh, spec: HyphaeMeshSpec): KubeObject {
  return compact({
    apiVersion: 'postgresql.cnpg.io/v1',
    kind: 'Cluster',
    metadata: metadata(mesh, names.cnpgCluster(mesh), 'postgres'),
    spec: {
      instances: spec.postgres.instances ?? 1,
      // CNPG's standard operand images ship pgvector; the extension is created at bootstrap.
      bootstrap: {
        initdb: { database: POSTGRES_DB, owner: POSTGRES_USER, postInitApplicationSQL: ['CREATE EXTENSION IF NOT EXISTS vector'] },
      },
      storage: { size: String(spec.postgres.storage.size), storageClass: spec.postgres.storage.storageClassName },
      resources: spec.postgres.resources,
    },
  });
}
