// Entry point: `tsx operator/src/main.ts [--kubeconfig PATH] [--namespace NS] [--probe-port N]
// [--lease-namespace NS] [--lease-duration-ms N] [--no-leader-elect] [--log-level L]`. SIGTERM/SIGINT stop watches, drain in-flight
// reconciles and release the Lease before exit.
import { parseArgs } from 'node:util';
import { runOperator } from './run-operator.js';
import { jsonLogger } from './runtime/logger.js';
import type { LogLevel } from './runtime/logger.js';

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    namespace: { type: 'string' },
    'probe-port': { type: 'string', default: process.env.HYPHAE_OPERATOR_PROBE_PORT ?? '8080' },
    'lease-namespace': { type: 'string' },
    'lease-duration-ms': { type: 'string' },
    'no-leader-elect': { type: 'boolean', default: false },
    'log-level': { type: 'string', default: process.env.HYPHAE_LOG_LEVEL ?? 'info' },
  },
});

/** Renew deadline and retry period scale with the lease duration, in client-go's 15/10/2 ratio. */
function leaseTimings(durationMs: string | undefined): { leaseDurationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number } {
  if (durationMs === undefined) return {};
  const d = Number(durationMs);
  return { leaseDurationMs: d, renewDeadlineMs: Math.round((d * 2) / 3), retryPeriodMs: Math.max(100, Math.round(d / 7.5)) };
}

const log = jsonLogger(values['log-level'] as LogLevel);
const handle = await runOperator({
  kubeconfig: values.kubeconfig,
  namespace: values.namespace,
  probePort: Number(values['probe-port']),
  leaderElection: { enabled: !values['no-leader-elect'], namespace: values['lease-namespace'], ...leaseTimings(values['lease-duration-ms']) },
  log,
});
log('info', 'operator started', { identity: handle.identity, probes: handle.probeUrl });

const shutdown = (signal: string): void => {
  log('info', 'shutting down', { signal });
  handle
    .stop()
    .then(() => process.exit(0))
    .catch(() => process.exit(1));
};
process.once('SIGTERM', () => shutdown('SIGTERM'));
process.once('SIGINT', () => shutdown('SIGINT'));
