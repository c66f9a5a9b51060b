// A thin REST client over node:https. The operator needs server-side apply with its own content
// type, streamed watches it can abort, and an exact count of the requests it issues (the
// steady-state "zero writes" promise is measured here), which is simpler to own than to wrap.
import http from 'node:http';
import https from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeApiError, OperatorError, WatchExpiredError } from '../errors.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface KubeRequest {
  method: HttpMethod;
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  contentType?: string;
}

export interface RequestRecord {
  method: HttpMethod;
  path: string;
  status: number;
}

export interface WatchEvent<T> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: T;
}

/** Every request issued, in order; tests and the bench count writes from it. */
export class RequestLog {
  private readonly records: RequestRecord[] = [];
  private readonly listeners = new Set<(r: RequestRecord) => void>();
  constructor(private readonly limit = 100_000) {}

  add(record: RequestRecord): void {
    if (this.records.length >= this.limit) this.records.shift();
    this.records.push(record);
    for (const l of this.listeners) l(record);
  }
  onRequest(listener: (r: RequestRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  all(): readonly RequestRecord[] {
    return this.records;
  }
  mark(): number {
    return this.records.length;
  }
  since(mark: number): RequestRecord[] {
    return this.records.slice(mark);
  }
}

export const isWrite = (r: Pick<RequestRecord, 'method'>): boolean => r.method !== 'GET';

export interface KubeClientOptions {
  /** Client-side timeout for non-watch requests. */
  requestTimeoutMs?: number;
  userAgent?: string;
}

export class KubeClient {
  readonly log = new RequestLog();
  private readonly agent: http.Agent;

  private constructor(
    private readonly server: URL,
    private readonly baseOptions: https.RequestOptions,
    private readonly options: Required<KubeClientOptions>,
  ) {
    const agentOptions = { keepAlive: true, maxSockets: 32 };
    this.agent = server.protocol === 'https:' ? new https.Agent({ ...agentOptions, ...pickTls(baseOptions) }) : new http.Agent(agentOptions);
  }

  static async fromKubeConfig(kc: KubeConfig, options: KubeClientOptions = {}): Promise<KubeClient> {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new OperatorError('KUBE_CONFIG_INVALID', 'kubeconfig has no current cluster');
    const base: https.RequestOptions = {};
    await kc.applyToHTTPSOptions(base);
    return new KubeClient(new URL(cluster.server), base, {
      requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
      userAgent: options.userAgent ?? 'hyphae-operator',
    });
  }

  static async fromKubeConfigFile(path?: string, options?: KubeClientOptions): Promise<KubeClient> {
    const kc = new KubeConfig();
    if (path) kc.loadFromFile(path);
    else kc.loadFromDefault();
    return KubeClient.fromKubeConfig(kc, options);
  }

  close(): void {
    this.agent.destroy();
  }

  async request<T>(req: KubeRequest): Promise<T> {
    const { status, body } = await this.send(req);
    if (status < 200 || status >= 300) throw apiError(req.method, req.path, status, body);
    return (body === '' ? undefined : JSON.parse(body)) as T;
  }

  /** GET a non-JSON endpoint (e.g. the API server's /metrics). */
  async getText(path: string): Promise<string> {
    const { status, body } = await this.send({ method: 'GET', path });
    if (status < 200 || status >= 300) throw apiError('GET', path, status, body);
    return body;
  }

  get<T>(path: string, query?: Record<string, string | undefined>): Promise<T> {
    return this.request<T>({ method: 'GET', path, query });
  }

  /** Server-side apply: the API server merges `obj` and records `fieldManager` as owner of its fields. */
  apply<T>(path: string, obj: unknown, fieldManager: string, subresource?: 'status'): Promise<T> {
    return this.request<T>({
      method: 'PATCH',
      path: subresource ? `${path}/${subresource}` : path,
      query: { fieldManager, force: 'true' },
      body: obj,
      contentType: 'application/apply-patch+yaml',
    });
  }

  mergePatch<T>(path: string, patch: unknown): Promise<T> {
    return this.request<T>({ method: 'PATCH', path, body: patch, contentType: 'application/merge-patch+json' });
  }

  /**
   * Stream a watch until the server ends it, `signal` aborts it, or it fails. Resolves on a clean
   * end; rejects with WatchExpiredError when the resourceVersion is too old (410 Gone).
   */
  watch<T>(path: string, query: Record<string, string | undefined>, signal: AbortSignal, onEvent: (e: WatchEvent<T>) => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal.aborted) return resolve();
      const url = this.url(path, { ...query, watch: '1' });
      const req = this.transport().request(url, { ...this.requestOptions('GET'), signal }, (res) => {
        const status = res.statusCode ?? 0;
        this.log.add({ method: 'GET', path, status });
        if (status !== 200) {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => reject(status === 410 ? new WatchExpiredError(path) : apiError('GET', path, status, text)));
          return;
        }
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let nl: number;
          while ((nl = buffer.indexOf('\n')) >= 0) {
            const line = buffer.slice(0, nl).trim();
            buffer = buffer.slice(nl + 1);
            if (line === '') continue;
            const event = JSON.parse(line) as WatchEvent<T>;
            if (event.type === 'ERROR') {
              const code = (event.object as { code?: number }).code;
              res.destroy();
              return reject(code === 410 ? new WatchExpiredError(path) : apiError('GET', path, code ?? 500, JSON.stringify(event.object)));
            }
            try {
              onEvent(event);
            } catch (err) {
              res.destroy();
              return reject(err);
            }
          }
        });
        res.on('end', () => resolve());
        res.on('error', (err) => (signal.aborted ? resolve() : reject(err)));
        res.on('close', () => resolve());
      });
      req.on('error', (err) => (signal.aborted ? resolve() : reject(err)));
      req.end();
    });
  }

  private send(req: KubeRequest): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const payload = req.body === undefined ? undefined : JSON.stringify(req.body);
      const options = this.requestOptions(req.method, req.contentType ?? 'application/json', payload);
      const r = this.transport().request(this.url(req.path, req.query), options, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          this.log.add({ method: req.method, path: req.path, status });
          resolve({ status, body: text });
        });
        res.on('error', reject);
      });
      r.setTimeout(this.options.requestTimeoutMs, () => r.destroy(new OperatorError('KUBE_REQUEST_FAILED', `${req.method} ${req.path} timed out`)));
      r.on('error', reject);
      r.end(payload);
    });
  }

  private transport(): typeof https | typeof http {
    return this.server.protocol === 'https:' ? https : http;
  }

  private url(path: string, query?: Record<string, string | undefined>): URL {
    const url = new URL(this.server.toString().replace(/\/$/, '') + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, v);
    return url;
  }

  private requestOptions(method: HttpMethod, contentType?: string, payload?: string): https.RequestOptions {
    const headers: Record<string, string | number> = {
      ...(this.baseOptions.headers as Record<string, string> | undefined),
      Accept: 'application/json',
      'User-Agent': this.options.userAgent,
    };
    if (contentType && payload !== undefined) {
      headers['Content-Type'] = contentType;
      headers['Content-Length'] = Buffer.byteLength(payload);
    }
    const tls = this.server.protocol === 'https:' ? pickTls(this.baseOptions) : {};
    return { ...tls, method, headers, agent: this.agent };
  }
}

function pickTls(o: https.RequestOptions): https.AgentOptions {
  const out: https.AgentOptions = {};
  if (o.ca !== undefined) out.ca = o.ca;
  if (o.cert !== undefined) out.cert = o.cert;
  if (o.key !== undefined) out.key = o.key;
  if (o.pfx !== undefined) out.pfx = o.pfx;
  if (o.passphrase !== undefined) out.passphrase = o.passphrase;
  if (o.rejectUnauthorized !== undefined) out.rejectUnauthorized = o.rejectUnauthorized;
  if (o.servername !== undefined) out.servername = o.servername;
  return out;
}

function apiError(method: string, path: string, status: number, body: string): KubeApiError {
  let reason = 'Unknown';
  let message = body.slice(0, 2000);
  try {
    const parsed = JSON.parse(body) as { reason?: string; message?: string };
    reason = parsed.reason ?? reason;
    message = parsed.message ?? message;
  } catch {
    // not a Status object; keep the raw text
  }
  return new KubeApiError(method, path, status, reason, message);
}
