// runOperator: the operator as a function, so `hyphae operator` (server CLI) and
// `tsx operator/src/main.ts` start the same thing. Leadership gates the controller: only the
// Lease holder watches and writes; followers keep campaigning and serve probes and metrics.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { KubeClient } from './kube/kube-client.js';
import { LeaderElector } from './controller/leader-election.js';
import { MeshController } from './controller/mesh-controller.js';
import type { MeshControllerOptions } from './controller/mesh-controller.js';
import { jsonLogger } from './runtime/logger.js';
import type { Logger } from './runtime/logger.js';
import { errorMessage } from './runtime/logger.js';
import { createOperatorMetrics } from './runtime/operator-metrics.js';
import type { OperatorMetrics } from './runtime/operator-metrics.js';
import { startProbeServer } from './runtime/probe-server.js';

export interface LeaderElectionConfig {
  /** Default true; disable only for a single replica you know is alone. */
  enabled?: boolean;
  namespace?: string;
  leaseName?: string;
  identity?: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
}

export interface OperatorOptions {
  /** Path to a kubeconfig; default: in-cluster service account, then $KUBECONFIG / ~/.kube/config. */
  kubeconfig?: string;
  /** Use this client instead of loading a kubeconfig (tests, embedding). */
  client?: KubeClient;
  /** Watch one namespace; all namespaces when undefined. */
  namespace?: string;
  leaderElection?: LeaderElectionConfig;
  /** Port for /metrics, /healthz, /readyz; 0 picks a free one; null disables the server. Default 8080. */
  probePort?: number | null;
  probeHost?: string;
  concurrency?: number;
  resyncMs?: number;
  discoveryIntervalMs?: number;
  watchTimeoutSeconds?: number;
  watchdogMs?: number;
  retryBaseDelayMs?: number;
  log?: Logger;
}

export interface OperatorHandle {
  client: KubeClient;
  metrics: OperatorMetrics;
  identity: string;
  /** Base URL of the probe server, when started. */
  probeUrl: string | undefined;
  isLeader(): boolean;
  /** The controller of the current leadership term (undefined while following). */
  controller(): MeshController | undefined;
  /** Stop the controller, release the Lease, close the probe server and the client. */
  stop(): Promise<void>;
}

export async function runOperator(options: OperatorOptions = {}): Promise<OperatorHandle> {
  const log = options.log ?? jsonLogger();
  const client = options.client ?? KubeClient.fromKubeConfigFile(options.kubeconfig);
  const ownsClient = options.client === undefined;
  const metrics = createOperatorMetrics({ processMetrics: options.probePort !== null });
  client.log.onRequest((r) => metrics.apiRequests.inc({ verb: r.method }));
  const le = options.leaderElection ?? {};
  const identity = le.identity ?? `${hostname()}-${randomBytes(4).toString('hex')}`;

  let controller: MeshController | undefined;
  let transition: Promise<void> = Promise.resolve();
  const controllerOptions: MeshControllerOptions = {
    client,
    metrics,
    log,
    namespace: options.namespace,
    concurrency: options.concurrency,
    resyncMs: options.resyncMs,
    discoveryIntervalMs: options.discoveryIntervalMs,
    watchTimeoutSeconds: options.watchTimeoutSeconds,
    watchdogMs: options.watchdogMs,
    retryBaseDelayMs: options.retryBaseDelayMs,
  };
  // Leadership callbacks are serialised so a quick lose/regain cannot run two controllers.
  const startLeading = (): Promise<void> =>
    (transition = transition.then(async () => {
      metrics.leader.set(1);
      controller = new MeshController(controllerOptions);
      // Not awaited: syncing may wait on a missing CRD, and a stop queued behind it must not hang.
      void controller.start().catch((err: unknown) => log('error', 'controller start failed', { error: errorMessage(err) }));
    }));
  const stopLeading = (): Promise<void> =>
    (transition = transition.then(async () => {
      metrics.leader.set(0);
      const c = controller;
      controller = undefined;
      await c?.stop();
    }));

  let elector: LeaderElector | undefined;
  if (le.enabled === false) {
    await startLeading();
  } else {
    elector = new LeaderElector({
      client,
      namespace: le.namespace ?? process.env.POD_NAMESPACE ?? options.namespace ?? 'default',
      name: le.leaseName ?? 'hyphae-operator',
      identity,
      leaseDurationMs: le.leaseDurationMs,
      renewDeadlineMs: le.renewDeadlineMs,
      retryPeriodMs: le.retryPeriodMs,
      onStartedLeading: startLeading,
      onStoppedLeading: stopLeading,
      log,
    });
    elector.start();
  }

  const probe =
    options.probePort === null
      ? undefined
      : await startProbeServer(
          metrics.registry,
          () => (controller ? controller.hasSynced() : elector !== undefined),
          options.probePort ?? 8080,
          options.probeHost,
        );

  let stopping: Promise<void> | undefined;
  return {
    client,
    metrics,
    identity,
    probeUrl: probe?.url,
    isLeader: () => (elector ? elector.isLeader() : true),
    controller: () => controller,
    stop: () =>
      (stopping ??= (async () => {
        if (elector) await elector.stop();
        else await stopLeading();
        await transition;
        await probe?.close();
        if (ownsClient) client.close();
        log('info', 'operator stopped', { identity });
      })()),
  };
}
