// Public surface of the operator package (what the server CLI and the tests import).
export { runOperator } from './run-operator.js';
export type { OperatorHandle, OperatorOptions, LeaderElectionConfig } from './run-operator.js';
export { KubeClient } from './kube/kube-client.js';
export { isWrite } from './kube/request-log.js';
export type { RequestRecord } from './kube/request-log.js';
export { hyphaeMeshCrd, hyphaeMeshCrdYaml, CRD_NAME } from './crd/hyphae-mesh-crd.js';
export type { HyphaeMeshSpec, HyphaeMeshStatus, Condition } from './crd/hyphae-mesh-schema.js';
export { OperatorError, KubeApiError } from './errors.js';
export { silentLogger, jsonLogger } from './runtime/logger.js';
export { operatorClusterRules, operatorLeaseRules } from './rbac.js';
export type { PolicyRule } from './rbac.js';
