// The operator's Prometheus metrics, on a registry of its own (two operators can share a process
// in tests, and the server's registry must not see operator series).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** What the condition gauge reads of a HyphaeMesh: its name and status conditions. */
export interface MeshConditionsView {
  readonly metadata: { readonly namespace?: string; readonly name: string };
  readonly status?: { readonly conditions?: ReadonlyArray<{ readonly type: string; readonly status: string }> };
}

const CONDITION_STATUSES = ['True', 'False', 'Unknown'] as const;

export interface OperatorMetrics {
  registry: Registry;
  reconciles: Counter<'result'>;
  reconcileErrors: Counter;
  reconcileDuration: Histogram;
  queueDepth: Gauge;
  applies: Counter<'kind' | 'action'>;
  watchRestarts: Counter<'kind' | 'reason'>;
  apiRequests: Counter<'verb'>;
  leader: Gauge;
  /** hyphae_operator_mesh_condition reads these meshes on each scrape (the leader's cache; none while following). */
  trackMeshes(list: () => readonly MeshConditionsView[]): void;
}

export function createOperatorMetrics(options: { processMetrics?: boolean } = {}): OperatorMetrics {
  const registry = new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry, prefix: 'hyphae_operator_' });
  const registers = [registry];
  let meshes: () => readonly MeshConditionsView[] = () => [];
  // One series per mesh, condition type and status, 1 for the status it has: bounded by the meshes
  // (a deleted mesh's series go with it) and the operator's own condition types.
  new Gauge({
    name: 'hyphae_operator_mesh_condition',
    help: 'Status conditions of each HyphaeMesh: 1 for the status the condition has.',
    labelNames: ['namespace', 'mesh', 'type', 'status'],
    registers,
    collect(): void {
      this.reset();
      for (const mesh of meshes()) {
        for (const condition of mesh.status?.conditions ?? []) {
          for (const status of CONDITION_STATUSES) {
            const labels = { namespace: mesh.metadata.namespace ?? '', mesh: mesh.metadata.name, type: condition.type, status: status.toLowerCase() };
            this.set(labels, condition.status === status ? 1 : 0);
          }
        }
      }
    },
  });
  const reconciles = new Counter({ name: 'hyphae_operator_reconciles_total', help: 'Reconciles by result.', labelNames: ['result'], registers });
  // Both results exist from the first scrape, so a rate sees the first failure.
  for (const result of ['success', 'error']) reconciles.inc({ result }, 0);
  return {
    registry,
    reconciles,
    reconcileErrors: new Counter({ name: 'hyphae_operator_reconcile_errors_total', help: 'Reconciles that failed and will be retried.', registers }),
    reconcileDuration: new Histogram({
      name: 'hyphae_operator_reconcile_duration_seconds',
      help: 'Duration of one reconcile.',
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    queueDepth: new Gauge({ name: 'hyphae_operator_queue_depth', help: 'Keys waiting in the work queue.', registers }),
    applies: new Counter({
      name: 'hyphae_operator_applies_total',
      help: 'Owned objects per reconcile by action: applied (server-side apply), unchanged (skipped), deleted.',
      labelNames: ['kind', 'action'],
      registers,
    }),
    watchRestarts: new Counter({ name: 'hyphae_operator_watch_restarts_total', help: 'Watch restarts by kind and reason.', labelNames: ['kind', 'reason'], registers }),
    apiRequests: new Counter({ name: 'hyphae_operator_api_requests_total', help: 'Requests sent to the API server, by verb.', labelNames: ['verb'], registers }),
    leader: new Gauge({ name: 'hyphae_operator_leader', help: '1 while this instance holds the leader Lease.', registers }),
    trackMeshes(list): void {
      meshes = list;
    },
  };
}
