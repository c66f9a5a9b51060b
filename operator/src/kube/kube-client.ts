// The operator's Kubernetes client, on @kubernetes/client-node. Requests go through
// KubernetesObjectApi's pipeline and watches through client-node's Watch; both apply the
// kubeconfig's credentials afresh each time, so a rotated service-account token file or an exec
// plugin's renewed token is picked up while the operator runs. Every request lands in `log`.
import { KubeConfig, PatchStrategy, ServerConfiguration, Watch, createConfiguration } from '@kubernetes/client-node';
import { KubeApiError, OperatorError, WatchExpiredError } from '../errors.js';
import { PlainObjectApi } from './object-api.js';
import type { ObjectReference } from './object-api.js';
import { RequestLog, recordingHttpLibrary } from './request-log.js';
import type { HttpMethod } from './request-log.js';
import { TlsAgentPool } from './tls-agent-pool.js';

export interface KubeRequest {
  method: HttpMethod;
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  contentType?: string;
}

export interface WatchEvent<T> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';
  object: T;
}

export interface KubeClientOptions {
  /** Client-side timeout for non-watch requests. */
  requestTimeoutMs?: number;
  userAgent?: string;
}

export class KubeClient {
  readonly log = new RequestLog();
  private readonly agents = new TlsAgentPool();
  private readonly objects: PlainObjectApi;
  private readonly watcher: Watch;
  private readonly openWatches = new Set<AbortController>();

  private constructor(kc: KubeConfig, options: KubeClientOptions) {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new OperatorError('KUBE_CONFIG_INVALID', 'kubeconfig has no current cluster');
    const configuration = createConfiguration({
      baseServer: new ServerConfiguration(cluster.server, {}),
      authMethods: { default: kc },
      httpApi: recordingHttpLibrary(this.log, options.requestTimeoutMs ?? 30_000, this.agents),
    });
    this.objects = new PlainObjectApi(configuration, options.userAgent ?? 'hyphae-operator');
    this.watcher = new Watch(kc);
  }

  static fromKubeConfig(kc: KubeConfig, options: KubeClientOptions = {}): KubeClient {
    return new KubeClient(kc, options);
  }

  /** From a kubeconfig file; without one, in-cluster service-account config, then $KUBECONFIG / ~/.kube/config. */
  static fromKubeConfigFile(path?: string, options?: KubeClientOptions): KubeClient {
    const kc = new KubeConfig();
    if (path) kc.loadFromFile(path);
    else kc.loadFromDefault();
    return KubeClient.fromKubeConfig(kc, options);
  }

  /** Abort every watch this client still has open and close its pooled connections. */
  close(): void {
    for (const watch of this.openWatches) watch.abort();
    this.openWatches.clear();
    this.agents.close();
  }

  request<T>(req: KubeRequest): Promise<T> {
    return this.objects.send<T>(req.method, req.path, req);
  }

  get<T>(path: string, query?: Record<string, string | undefined>): Promise<T> {
    return this.objects.send<T>('GET', path, { query });
  }

  /** GET a non-JSON endpoint (e.g. the API server's /metrics). */
  async getText(path: string): Promise<string> {
    return String(await this.objects.send<unknown>('GET', path));
  }

  mergePatch<T>(path: string, patch: unknown): Promise<T> {
    return this.objects.send<T>('PATCH', path, { body: patch, contentType: PatchStrategy.MergePatch });
  }

  /** Server-side apply, forced: the API server merges `obj` and records `fieldManager` as owner of its fields. */
  async apply<T>(obj: ObjectReference, fieldManager: string, subresource?: 'status'): Promise<T> {
    const path = await this.objects.objectPath(obj);
    return this.objects.send<T>('PATCH', subresource ? `${path}/${subresource}` : path, {
      query: { fieldManager, force: 'true' },
      body: obj,
      contentType: PatchStrategy.ServerSideApply,
    });
  }

  async read<T>(ref: ObjectReference): Promise<T> {
    return this.objects.send<T>('GET', await this.objects.objectPath(ref));
  }

  async create<T>(obj: ObjectReference): Promise<T> {
    return this.objects.send<T>('POST', await this.objects.collectionPathOf(obj), { body: obj });
  }

  /** PUT: carries the object's resourceVersion, so a concurrent writer makes it fail with 409. */
  async replace<T>(obj: ObjectReference): Promise<T> {
    return this.objects.send<T>('PUT', await this.objects.objectPath(obj), { body: obj });
  }

  async delete(ref: ObjectReference): Promise<void> {
    await this.objects.send<unknown>('DELETE', await this.objects.objectPath(ref));
  }

  /**
   * Open a watch on a collection path. Events other than ERROR go to `onEvent`; `onEnd` runs
   * once, when the server ends the stream (no argument) or it fails: WatchExpiredError for
   * 410 Gone (the resourceVersion is too old), KubeApiError for another status. The returned
   * controller aborts it (onEnd may then run with the abort error).
   */
  async watch<T>(path: string, query: Record<string, string | undefined>, onEvent: (e: WatchEvent<T>) => void, onEnd: (err?: unknown) => void): Promise<AbortController> {
    let ended = false;
    let status: number | undefined;
    const opened: { controller?: AbortController } = {};
    const end = (err?: unknown): void => {
      if (ended) return;
      ended = true;
      if (opened.controller) {
        opened.controller.abort();
        this.openWatches.delete(opened.controller);
      }
      onEnd(err);
    };
    const controller = await this.watcher.watch(
      path,
      query,
      (type: string, object: unknown) => {
        if (ended) return;
        if (type === 'ERROR') end(watchFailure(path, object as Status));
        else onEvent({ type, object } as WatchEvent<T>);
      },
      (err: unknown) => {
        status = (err as { statusCode?: number } | null)?.statusCode;
        end(status === undefined ? (err ?? undefined) : watchFailure(path, { code: status, reason: (err as Error).message }));
      },
    );
    opened.controller = controller;
    // The stream is open (200) unless it already ended with an HTTP status; a refused connection has none.
    if (status !== undefined || !ended) this.log.add({ method: 'GET', path, status: status ?? 200 });
    if (ended) controller.abort();
    else this.openWatches.add(controller);
    return controller;
  }
}

interface Status {
  code?: number;
  reason?: string;
  message?: string;
}

function watchFailure(path: string, status: Status): Error {
  if (status.code === 410) return new WatchExpiredError(path);
  return new KubeApiError('GET', path, status.code ?? 500, status.reason ?? 'Unknown', status.message ?? '');
}
