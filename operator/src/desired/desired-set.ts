// Every object a HyphaeMesh should own, as a pure function of its spec and two inputs the
// reconciler gathers: the managed-database password and which optional kinds the cluster serves.
import type { HyphaeMeshSpec } from '../crd/hyphae-mesh-schema.js';
import type { KubeObject } from '../kube/kube-object.js';
import { CNPG_CLUSTER, SERVICE_MONITOR, typeKey } from '../kube/resource-types.js';
import { apiDeployment } from './api-deployment.js';
import { apiService } from './api-service.js';
import { cnpgCluster } from './cnpg-cluster.js';
import { configMap } from './config-map.js';
import { apiHpa } from './hpa.js';
import { ingress } from './ingress.js';
import { networkPolicies } from './network-policies.js';
import { natsClientService, natsClusterService, natsStatefulSet } from './nats-statefulset.js';
import { podDisruptionBudgets } from './pod-disruption-budgets.js';
import { patroniConfigMap } from './patroni-config.js';
import { patroniRole, patroniRoleBinding, patroniServiceAccount } from './patroni-rbac.js';
import { patroniConfigService, postgresReplicaService } from './patroni-services.js';
import { patroniStatefulSet } from './patroni-statefulset.js';
import { postgresBackupClaim, postgresBackupCronJob } from './postgres-backup.js';
import { postgresSecret } from './postgres-secret.js';
import { postgresService, postgresStatefulSet } from './postgres-statefulset.js';
import { usesPatroni } from './postgres-topology.js';
import { serviceMonitor } from './service-monitor.js';
import { workerDeployment } from './worker-deployment.js';
import type { HyphaeMesh } from './hyphae-mesh.js';

export interface DesiredInputs {
  /** Password of the managed database (read from its Secret, or freshly generated). */
  postgresPassword: string;
  /** typeKey()s of optional kinds the API server serves (see OPTIONAL_TYPES). */
  availableKinds: ReadonlySet<string>;
}

export interface DesiredSet {
  objects: KubeObject[];
  /** Kinds the spec asks for that the cluster lacks (their objects are left out). */
  missingKinds: string[];
}

export function desiredSet(mesh: HyphaeMesh, spec: HyphaeMeshSpec, inputs: DesiredInputs): DesiredSet {
  const objects: KubeObject[] = [];
  const missingKinds: string[] = [];
  const optional = (kind: string, build: () => KubeObject): void => {
    if (inputs.availableKinds.has(kind)) objects.push(build());
    else missingKinds.push(kind);
  };

  const cm = configMap(mesh, spec);
  // Policies before the pods they guard.
  objects.push(cm, ...networkPolicies(mesh, spec));

  if (spec.postgres.mode === 'managed' && usesPatroni(spec)) {
    objects.push(postgresSecret(mesh, inputs.postgresPassword), ...patroniObjects(mesh, spec));
  } else if (spec.postgres.mode === 'managed') {
    objects.push(postgresSecret(mesh, inputs.postgresPassword), postgresService(mesh, spec), postgresStatefulSet(mesh, spec));
  } else if (spec.postgres.mode === 'cnpg') {
    optional(typeKey(CNPG_CLUSTER), () => cnpgCluster(mesh, spec));
  }

  if (spec.nats.mode === 'managed') {
    objects.push(natsClientService(mesh), natsClusterService(mesh), natsStatefulSet(mesh, spec));
  }

  objects.push(apiService(mesh, spec), apiDeployment(mesh, spec, cm.data as Record<string, string>), workerDeployment(mesh, spec), ...podDisruptionBudgets(mesh, spec));

  if (spec.autoscaling.enabled) objects.push(apiHpa(mesh, spec));
  if (spec.ingress.enabled) objects.push(ingress(mesh, spec));
  if (spec.monitoring.serviceMonitor.enabled) optional(typeKey(SERVICE_MONITOR), () => serviceMonitor(mesh, spec));

  return { objects, missingKinds };
}

/** PostgreSQL under Patroni: its RBAC and settings before the pods, and the backup objects when asked for. */
function patroniObjects(mesh: HyphaeMesh, spec: HyphaeMeshSpec): KubeObject[] {
  const claim = spec.postgres.backup.enabled ? postgresBackupClaim(mesh, spec) : undefined;
  return [
    patroniServiceAccount(mesh),
    patroniRole(mesh),
    patroniRoleBinding(mesh),
    patroniConfigMap(mesh, spec),
    postgresService(mesh, spec),
    patroniConfigService(mesh),
    postgresReplicaService(mesh),
    ...(claim === undefined ? [] : [claim]),
    patroniStatefulSet(mesh, spec),
    ...(spec.postgres.backup.enabled ? [postgresBackupCronJob(mesh, spec)] : []),
  ];
}
