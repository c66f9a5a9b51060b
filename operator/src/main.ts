// Entry point: `tsx operator/src/main.ts [--kubeconfig PATH] [--namespace NS] [--probe-port N]
// [--lease-namespace NS] [--no-leader-elect]`. SIGTERM/SIGINT stop watches, drain in-flight
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
    'no-leader-elect': { type: 'boolean', default: false },
    'log-level': { type: 'string', default: process.env.HYPHAE_LOG_LEVEL ?? 'info' },
  },
});

const log = jsonLogger(values['log-level'] as LogLevel);
const handle = await runOperator({
  kubeconfig: values.kubeconfig,
  namespace: values.namespace,
  probePort: Number(values['probe-port']),
  leaderElection: { enabled: !values['no-leader-elect'], namespace: values['lease-namespace'] },
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
