// Wires informers, the work queue and the reconciler: every HyphaeMesh event and every event on
// an object it controls enqueues that mesh; a periodic resync re-enqueues all meshes; discovery
// is re-run so add-on kinds installed later start being managed without a restart.
import type { KubeClient } from '../kube/kube-client.js';
import { Informer } from '../kube/informer.js';
import type { InformerOptions } from '../kube/informer.js';
import type { KubeObject } from '../kube/kube-object.js';
import { objectKey } from '../kube/kube-object.js';
import type { ResourceType } from '../kube/resource-types.js';
import { HYPHAE_MESH, OPTIONAL_TYPES, OWNED_TYPES, typeKey } from '../kube/resource-types.js';
import { KIND } from '../crd/hyphae-mesh-schema.js';
import { MANAGED_BY_SELECTOR } from '../desired/common.js';
import type { HyphaeMesh } from '../desired/hyphae-mesh.js';
import type { Logger } from '../runtime/logger.js';
import { errorMessage } from '../runtime/logger.js';
import type { OperatorMetrics } from '../runtime/operator-metrics.js';
import { discoverOptionalKinds } from './discovery.js';
import { MeshReconciler } from './mesh-reconciler.js';
import { WorkQueue } from './work-queue.js';

type WatchRestartReason = Parameters<NonNullable<InformerOptions<KubeObject>['onRestart']>>[0];
const WATCH_RESTART_REASONS: readonly WatchRestartReason[] = ['expired', 'watchdog', 'error', 'closed'];

export interface MeshControllerOptions {
  client: KubeClient;
  metrics: OperatorMetrics;
  log: Logger;
  /** Watch one namespace; all namespaces when undefined. */
  namespace?: string;
  concurrency?: number;
  resyncMs?: number;
  discoveryIntervalMs?: number;
  watchTimeoutSeconds?: number;
  watchdogMs?: number;
  retryBaseDelayMs?: number;
}

export class MeshController {
  private readonly meshes: Informer<HyphaeMesh>;
  private readonly owned = new Map<string, Informer<KubeObject>>();
  private readonly queue: WorkQueue;
  private readonly reconciler: MeshReconciler;
  private available = new Set<string>();
  private timers: NodeJS.Timeout[] = [];
  private synced = false;
  private stopped = false;
  private signalStop: () => void = () => undefined;
  private readonly stopSignal = new Promise<void>((resolve) => (this.signalStop = resolve));

  constructor(private readonly options: MeshControllerOptions) {
    const { client, metrics, log } = options;
    this.meshes = new Informer<HyphaeMesh>(client, HYPHAE_MESH, {
      ...this.informerOptions(HYPHAE_MESH),
      onEvent: (_type, obj) => this.queue.add(objectKey(obj.metadata.namespace, obj.metadata.name)),
    });
    this.queue = new WorkQueue((key) => this.process(key), {
      concurrency: options.concurrency ?? 2,
      baseDelayMs: options.retryBaseDelayMs ?? 200,
      onDepthChange: (d) => metrics.queueDepth.set(d),
    });
    // The conditions gauge reads the meshes this controller watches, while it leads.
    metrics.trackMeshes(() => (this.stopped ? [] : this.meshes.list()));
    this.reconciler = new MeshReconciler({
      client,
      meshes: this.meshes,
      owned: this.owned,
      availableKinds: () => this.available,
      metrics,
      log,
    });
  }

  /** Start caches, wait for them to sync, then queue every mesh. */
  async start(): Promise<void> {
    this.available = await this.discoverUntilStopped();
    if (this.stopped) return;
    for (const rt of OWNED_TYPES) if (this.isServed(rt)) this.startOwnedInformer(rt);
    this.meshes.start();
    // Sync can take forever (e.g. the HyphaeMesh CRD is not installed yet): stop() must win.
    await Promise.race([Promise.all([this.meshes.waitForSync(), ...[...this.owned.values()].map((i) => i.waitForSync())]), this.stopSignal]);
    if (this.stopped) return;
    this.synced = true;
    this.enqueueAll();
    this.timers.push(setInterval(() => this.enqueueAll(), this.options.resyncMs ?? 10 * 60_000));
    this.timers.push(setInterval(() => void this.rediscover(), this.options.discoveryIntervalMs ?? 60_000));
  }

  /** Stop watches, let in-flight reconciles finish, drop queued keys (the next leader relists). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.signalStop();
    for (const t of this.timers) clearInterval(t);
    await this.queue.shutdown();
    await Promise.all([this.meshes.stop(), ...[...this.owned.values()].map((i) => i.stop())]);
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves once no reconcile is queued or running. */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  /** Queue every known mesh now (what the periodic resync does). */
  resync(): void {
    this.enqueueAll();
  }

  availableKinds(): ReadonlySet<string> {
    return this.available;
  }

  private isServed(rt: ResourceType): boolean {
    return !OPTIONAL_TYPES.includes(rt) || this.available.has(typeKey(rt));
  }

  private informerOptions(rt: ResourceType): { namespace?: string; watchTimeoutSeconds?: number; watchdogMs?: number; onRestart: (r: string) => void; onError: (e: unknown) => void } {
    // Every reason exists from the first scrape, so a rate sees the first restart.
    for (const reason of WATCH_RESTART_REASONS) this.options.metrics.watchRestarts.inc({ kind: rt.kind, reason }, 0);
    return {
      namespace: this.options.namespace,
      watchTimeoutSeconds: this.options.watchTimeoutSeconds,
      watchdogMs: this.options.watchdogMs,
      onRestart: (reason) => this.options.metrics.watchRestarts.inc({ kind: rt.kind, reason }),
      onError: (err) => this.options.log('warn', 'watch failed', { kind: rt.kind, error: errorMessage(err) }),
    };
  }

  private startOwnedInformer(rt: ResourceType): Informer<KubeObject> {
    const informer = new Informer<KubeObject>(this.options.client, rt, {
      ...this.informerOptions(rt),
      // Only objects we label: keeps the caches (and Secret reads) to what the operator owns.
      labelSelector: MANAGED_BY_SELECTOR,
      onEvent: (_type, obj) => {
        const owner = obj.metadata.ownerReferences?.find((r) => r.controller && r.kind === KIND);
        if (owner && obj.metadata.namespace) this.queue.add(objectKey(obj.metadata.namespace, owner.name));
      },
    });
    this.owned.set(typeKey(rt), informer);
    informer.start();
    return informer;
  }

  private enqueueAll(): void {
    for (const m of this.meshes.list()) this.queue.add(objectKey(m.metadata.namespace, m.metadata.name));
  }

  private async discoverUntilStopped(): Promise<Set<string>> {
    for (let attempt = 1; !this.stopped; attempt++) {
      try {
        return await discoverOptionalKinds(this.options.client);
      } catch (err) {
        this.options.log('warn', 'discovery failed; retrying', { error: errorMessage(err) });
        await Promise.race([new Promise((r) => setTimeout(r, Math.min(200 * 2 ** attempt, 10_000))), this.stopSignal]);
      }
    }
    return new Set();
  }

  private async rediscover(): Promise<void> {
    try {
      const next = await discoverOptionalKinds(this.options.client);
      const changed = next.size !== this.available.size || [...next].some((k) => !this.available.has(k));
      if (!changed || this.stopped) return;
      this.options.log('info', 'optional kinds changed', { available: [...next] });
      this.available = next;
      for (const rt of OPTIONAL_TYPES) {
        if (next.has(typeKey(rt)) && !this.owned.has(typeKey(rt))) await this.startOwnedInformer(rt).waitForSync();
      }
      this.enqueueAll();
    } catch (err) {
      this.options.log('warn', 'discovery failed', { error: errorMessage(err) });
    }
  }

  private async process(key: string): Promise<void> {
    const end = this.options.metrics.reconcileDuration.startTimer();
    try {
      const outcome = await this.reconciler.reconcile(key);
      this.options.metrics.reconciles.inc({ result: 'success' });
      if (outcome && (outcome.applied || outcome.deleted || outcome.statusWritten)) this.options.log('info', 'reconciled', { mesh: key, ...outcome });
    } catch (err) {
      this.options.metrics.reconciles.inc({ result: 'error' });
      this.options.metrics.reconcileErrors.inc();
      this.options.log('warn', 'reconcile failed; will retry', { mesh: key, error: errorMessage(err) });
      throw err;
    } finally {
      end();
    }
  }
}
