// The operator's Prometheus metrics, on a registry of its own (two operators can share a process
// in tests, and the server's registry must not see operator series).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

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
}

export function createOperatorMetrics(options: { processMetrics?: boolean } = {}): OperatorMetrics {
  const registry = new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry, prefix: 'hyphae_operator_' });
  const registers = [registry];
  return {
    registry,
    reconciles: new Counter({ name: 'hyphae_operator_reconciles_total', help: 'Reconciles by result.', labelNames: ['result'], registers }),
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
  };
}
