// The Services of PostgreSQL under Patroni besides the primary one (postgres-statefulset.ts):
// <name>-postgres-ro for reads from the replicas, and the Service that keeps Patroni's own
// configuration Endpoints from being removed as orphans.
import type { KubeObject } from '../kube/kube-object.js';
import { POSTGRES_PORT, metadata, names, selectorLabels } from './common.js';
import { PATRONI_ROLE_LABEL } from './patroni-statefulset.js';
import type { HyphaeMesh } from './hyphae-mesh.js';

/** The running replicas, by the role label Patroni keeps on each pod; lagging reads are the price of spreading load. */
export function postgresReplicaService(mesh: HyphaeMesh): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: metadata(mesh, names.postgresReplicas(mesh), 'postgres'),
    spec: {
      selector: { ...selectorLabels(mesh, 'postgres'), [PATRONI_ROLE_LABEL]: 'replica' },
      ports: [{ name: 'postgres', port: POSTGRES_PORT, targetPort: 'postgres', protocol: 'TCP' }],
    },
  };
}

/**
 * Patroni stores its cluster configuration in the Endpoints <scope>-config; without a Service of the
 * same name the endpoints controller deletes them as leftovers. Patroni would create it, but created
 * here it is owned by the mesh and Patroni needs no right to create Services.
 */
export function patroniConfigService(mesh: HyphaeMesh): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: metadata(mesh, names.patroniConfig(mesh), 'postgres'),
    spec: { clusterIP: 'None' },
  };
}
