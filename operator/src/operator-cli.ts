// The operator's command line, shared by `hyphae operator` and `tsx operator/src/main.ts`:
// [--kubeconfig PATH] [--namespace NS] [--probe-port N] [--probe-host H] [--lease-namespace NS]
// [--lease-duration-ms N] [--no-leader-elect] [--log-level L]. SIGTERM/SIGINT stop watches, drain in-flight reconciles and release the Lease.
import { parseArgs } from 'node:util';
import { runOperator } from './run-operator.js';
import { jsonLogger } from './runtime/logger.js';
import type { LogLevel } from './runtime/logger.js';

const LOG_LEVELS: readonly string[] = ['debug', 'info', 'warn', 'error'];

export async function runOperatorCli(argv: readonly string[]): Promise<void> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      kubeconfig: { type: 'string' },
      namespace: { type: 'string' },
      'probe-port': { type: 'string', default: process.env.HYPHAE_OPERATOR_PROBE_PORT ?? '8080' },
      // All interfaces by default (the kubelet probes the pod IP); tests bind loopback.
      'probe-host': { type: 'string' },
      'lease-namespace': { type: 'string' },
      'lease-duration-ms': { type: 'string' },
      'no-leader-elect': { type: 'boolean', default: false },
      'log-level': { type: 'string', default: process.env.HYPHAE_LOG_LEVEL ?? 'info' },
    },
  });
  const level = values['log-level'];
  if (!LOG_LEVELS.includes(level)) throw new Error(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got "${level}"`);
  const probePort = Number(values['probe-port']);
  if (!Number.isInteger(probePort) || probePort < 0 || probePort > 65535) {
    throw new Error(`--probe-port must be a port number, got "${values['probe-port']}"`);
  }
  const leaseDuration = values['lease-duration-ms'] === undefined ? undefined : Number(values['lease-duration-ms']);
  if (leaseDuration !== undefined && !(Number.isInteger(leaseDuration) && leaseDuration >= 1000)) {
    throw new Error(`--lease-duration-ms must be an integer ≥ 1000, got "${values['lease-duration-ms']}"`);
  }
  const log = jsonLogger(level as LogLevel);
  const handle = await runOperator({
    kubeconfig: values.kubeconfig,
    namespace: values.namespace,
    probePort,
    ...(values['probe-host'] === undefined ? {} : { probeHost: values['probe-host'] }),
    leaderElection: { enabled: !values['no-leader-elect'], namespace: values['lease-namespace'], ...leaseTimings(leaseDuration) },
    log,
  });
  log('info', 'operator started', { identity: handle.identity, probes: handle.probeUrl });
  await new Promise<void>((resolve) => {
    const shutdown = (signal: string): void => {
      log('info', 'shutting down', { signal });
      handle
        .stop()
        .catch((error: unknown) => {
          log('error', 'shutdown failed', { error: error instanceof Error ? error.message : String(error) });
          process.exitCode = 1;
        })
        .finally(resolve);
    };
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));
  });
}

/** Renew deadline and retry period follow the lease duration in client-go's 15 : 10 : 2 ratio. */
function leaseTimings(durationMs: number | undefined): { leaseDurationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number } {
  if (durationMs === undefined) return {};
  return { leaseDurationMs: durationMs, renewDeadlineMs: Math.round((durationMs * 2) / 3), retryPeriodMs: Math.max(100, Math.round(durationMs / 7.5)) };
}
