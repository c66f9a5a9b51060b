// List+watch cache of one kind, over client-node's Watch (through KubeClient). Resumes from the
// last resourceVersion (bookmarks keep it fresh), relists on 410 Gone, restarts a watch that stays
// silent past the watchdog deadline (a half-open connection otherwise stalls forever), retries
// failures with backoff, and reports every change so the controller can enqueue the owning
// HyphaeMesh. client-node's ListWatch stops at the first failure and has no watchdog.
import type { KubeClient, WatchEvent } from './kube-client.js';
import type { KubeList, KubeObject } from './kube-object.js';
import { keyOf } from './kube-object.js';
import type { ResourceType } from './resource-types.js';
import { apiVersionOf, collectionPath } from './resource-types.js';
import { WatchExpiredError } from '../errors.js';

export type InformerEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface InformerOptions<T extends KubeObject> {
  namespace?: string;
  labelSelector?: string;
  /** Server-side watch timeout; the API server ends the watch after it and we re-watch. */
  watchTimeoutSeconds?: number;
  /** Restart the watch when no event (bookmarks included) arrives for this long. */
  watchdogMs?: number;
  onEvent: (type: InformerEventType, obj: T, old?: T) => void;
  onRestart?: (reason: 'expired' | 'watchdog' | 'error' | 'closed') => void;
  onError?: (err: unknown) => void;
  /**
   * Resume from a known resourceVersion instead of listing first. If it is too old the server
   * answers 410 Gone and the informer relists. waitForSync() still waits for a list.
   */
  startResourceVersion?: string;
}

export class Informer<T extends KubeObject> {
  private readonly cache = new Map<string, T>();
  private resourceVersion: string | undefined;
  private running = false;
  private synced = false;
  private abortWatch: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private syncWaiters: Array<() => void> = [];
  private readonly watchTimeoutSeconds: number;
  private readonly watchdogMs: number;

  constructor(
    private readonly client: KubeClient,
    readonly type: ResourceType,
    private readonly options: InformerOptions<T>,
  ) {
    this.watchTimeoutSeconds = options.watchTimeoutSeconds ?? 300;
    this.watchdogMs = options.watchdogMs ?? (this.watchTimeoutSeconds + 30) * 1000;
    this.resourceVersion = options.startResourceVersion;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.abortWatch?.();
    await this.loop;
  }

  hasSynced(): boolean {
    return this.synced;
  }

  waitForSync(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  get(namespace: string | undefined, name: string): T | undefined {
    return this.cache.get(namespace ? `${namespace}/${name}` : name);
  }

  list(): T[] {
    return [...this.cache.values()];
  }

  /**
   * Record an object we just wrote (the API server's answer) so the next reconcile sees it even
   * before its watch event arrives; never replaces a newer cached version.
   */
  observe(obj: T): void {
    const key = keyOf(obj);
    const cached = this.cache.get(key);
    if (!cached || newer(obj.metadata.resourceVersion, cached.metadata.resourceVersion)) this.cache.set(key, obj);
  }

  forget(obj: KubeObject): void {
    this.cache.delete(keyOf(obj));
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      try {
        if (this.resourceVersion === undefined) await this.relist();
        // stop() may have run while we listed; a watch started now would outlive it.
        if (!this.running) break;
        const reason = await this.watchOnce();
        failures = 0;
        if (this.running) this.options.onRestart?.(reason);
      } catch (err) {
        if (!this.running) break;
        if (err instanceof WatchExpiredError) {
          this.resourceVersion = undefined;
          this.options.onRestart?.('expired');
          continue;
        }
        failures++;
        this.options.onError?.(err);
        this.options.onRestart?.('error');
        // After repeated failures the resourceVersion may be stale too: start over from a list.
        if (failures >= 3) this.resourceVersion = undefined;
        await sleep(Math.min(200 * 2 ** failures, 10_000), () => !this.running);
      }
    }
  }

  private async relist(): Promise<void> {
    const list = await this.client.get<KubeList<T>>(collectionPath(this.type, this.options.namespace), {
      labelSelector: this.options.labelSelector,
    });
    const fresh = new Map<string, T>();
    for (const item of list.items) {
      // List items omit apiVersion/kind; restore them so cached objects are self-describing.
      const obj = { ...item, apiVersion: apiVersionOf(this.type), kind: this.type.kind } as T;
      fresh.set(keyOf(obj), obj);
    }
    const previous = new Map(this.cache);
    this.cache.clear();
    for (const [k, v] of fresh) this.cache.set(k, v);
    this.resourceVersion = list.metadata.resourceVersion;
    for (const [k, obj] of fresh) {
      const old = previous.get(k);
      if (!old) this.options.onEvent('ADDED', obj);
      else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) this.options.onEvent('MODIFIED', obj, old);
    }
    for (const [k, old] of previous) if (!fresh.has(k)) this.options.onEvent('DELETED', old);
    if (!this.synced) {
      this.synced = true;
      for (const w of this.syncWaiters.splice(0)) w();
    }
  }

  /** One watch from the current resourceVersion, until the server ends it, the watchdog fires or stop() runs. */
  private watchOnce(): Promise<'watchdog' | 'closed'> {
    return new Promise((resolve, reject) => {
      let controller: AbortController | undefined;
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      const settle = (outcome: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.abortWatch = undefined;
        controller?.abort();
        outcome();
      };
      const arm = (): void => {
        clearTimeout(timer);
        timer = setTimeout(() => settle(() => resolve('watchdog')), this.watchdogMs);
      };
      this.abortWatch = () => settle(() => resolve('closed'));
      arm();
      this.client
        .watch<T>(
          collectionPath(this.type, this.options.namespace),
          {
            resourceVersion: this.resourceVersion,
            allowWatchBookmarks: 'true',
            timeoutSeconds: String(this.watchTimeoutSeconds),
            labelSelector: this.options.labelSelector,
          },
          (event) => {
            if (settled) return;
            arm();
            try {
              this.handle(event);
            } catch (err) {
              settle(() => reject(err));
            }
          },
          (err) => settle(() => (err === undefined ? resolve('closed') : reject(err))),
        )
        .then(
          (opened) => {
            controller = opened;
            if (settled) opened.abort();
          },
          (err: unknown) => settle(() => reject(err)),
        );
    });
  }

  private handle(event: WatchEvent<T>): void {
    const obj = event.object;
    if (obj.metadata.resourceVersion) this.resourceVersion = obj.metadata.resourceVersion;
    if (event.type === 'BOOKMARK') return;
    const key = keyOf(obj);
    const old = this.cache.get(key);
    if (event.type === 'DELETED') {
      this.cache.delete(key);
      this.options.onEvent('DELETED', obj);
      return;
    }
    this.cache.set(key, obj);
    this.options.onEvent(old ? 'MODIFIED' : 'ADDED', obj, old);
  }
}

/** resourceVersions are opaque, but etcd's are integers; compare them when both are. */
function newer(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined) return false;
  if (b === undefined) return true;
  if (/^\d+$/.test(a) && /^\d+$/.test(b)) return BigInt(a) > BigInt(b);
  return a !== b;
}

function sleep(ms: number, cancelled: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const step = Math.min(ms, 100);
    let waited = 0;
    const tick = (): void => {
      waited += step;
      if (waited >= ms || cancelled()) resolve();
      else setTimeout(tick, step);
    };
    setTimeout(tick, step);
  });
}
