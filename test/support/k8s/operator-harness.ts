// Starts the operator in-process against a test control plane, with its own client so the
// requests it issues can be counted separately from the test's own.
import { runOperator } from '../../../operator/src/run-operator.js';
import type { OperatorHandle, OperatorOptions } from '../../../operator/src/run-operator.js';
import { silentLogger } from '../../../operator/src/runtime/logger.js';
import type { ControlPlane } from './control-plane.js';
import { clientFor } from './kube-helpers.js';

export async function startTestOperator(cp: ControlPlane, options: OperatorOptions = {}): Promise<OperatorHandle> {
  return runOperator({
    client: clientFor(cp),
    probePort: 0,
    probeHost: '127.0.0.1',
    log: process.env.HYPHAE_TEST_OPERATOR_LOG ? undefined : silentLogger,
    retryBaseDelayMs: 50,
    ...options,
  });
}
