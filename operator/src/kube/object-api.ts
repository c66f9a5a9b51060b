// client-node's KubernetesObjectApi, exchanging plain JSON. Its path resolution (with its
// discovery cache) and its request pipeline (kubeconfig credentials applied to each request,
// middleware, the HTTP library) are used as they are. Its own create/patch/replace re-encode an
// object through the generated models, which drop whatever the models do not know — a CRD's
// `x-kubernetes-validations` and `default`s, any field newer than the models — and under
// server-side apply a dropped field is a field given up; so bodies and answers stay plain JSON.
import { ApiException, KubernetesObjectApi } from '@kubernetes/client-node';
import type { Configuration, HttpMethod as ClientHttpMethod, KubernetesObject, RequestContext, ResponseContext } from '@kubernetes/client-node';
import { KubeApiError } from '../errors.js';
import type { HttpMethod } from './request-log.js';

/** What names an object: enough for client-node to resolve its REST path. */
export interface ObjectReference {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
}

export interface SendOptions {
  query?: Record<string, string | undefined>;
  body?: unknown;
  contentType?: string;
}

export class PlainObjectApi extends KubernetesObjectApi {
  constructor(
    configuration: Configuration,
    private readonly userAgent: string,
  ) {
    super(configuration);
  }

  /** The REST path of an object, resolved the way client-node resolves it (kinds it does not know through discovery). */
  objectPath(ref: ObjectReference): Promise<string> {
    return this.specUriPath(ref as KubernetesObject, 'read');
  }

  /** The collection an object is created in. */
  collectionPathOf(ref: ObjectReference): Promise<string> {
    return this.specUriPath(ref as KubernetesObject, 'create');
  }

  /** One request: JSON in, and JSON (or the text of a non-JSON answer) out; a non-2xx answer throws KubeApiError. */
  async send<T>(method: HttpMethod, path: string, options: SendOptions = {}): Promise<T> {
    const request = this.configuration.baseServer.makeRequestContext(path, method as ClientHttpMethod);
    request.setHeaderParam('Accept', 'application/json, */*;q=0.8');
    request.setHeaderParam('User-Agent', this.userAgent);
    for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) request.setQueryParam(name, value);
    if (options.body !== undefined) {
      request.setHeaderParam('Content-Type', options.contentType ?? 'application/json');
      request.setBody(JSON.stringify(options.body));
    }
    return (await this.requestPromise(request)) as T;
  }

  protected override async requestPromise<T extends KubernetesObject>(request: RequestContext, type?: string, options?: Configuration): Promise<T> {
    try {
      return await super.requestPromise<T>(request, type, options);
    } catch (err) {
      if (err instanceof ApiException) throw apiError(request, err.code, String(err.body));
      throw err;
    }
  }

  protected override async processResponse<T extends KubernetesObject>(response: ResponseContext): Promise<T> {
    const text = await response.body.text();
    if (response.httpStatusCode < 200 || response.httpStatusCode > 299) throw new ApiException(response.httpStatusCode, 'Unsuccessful HTTP Request', text, response.headers);
    if (text === '') return undefined as unknown as T;
    return (/json/.test(response.headers['content-type'] ?? '') ? JSON.parse(text) : text) as T;
  }
}

/** The API server's Status answer as a typed error: `status` and `reason` for callers to branch on. */
function apiError(request: RequestContext, status: number, body: string): KubeApiError {
  let reason = 'Unknown';
  let message = body.slice(0, 2000);
  try {
    const parsed = JSON.parse(body) as { reason?: string; message?: string };
    reason = parsed.reason ?? reason;
    message = parsed.message ?? message;
  } catch {
    // not a Status object; keep the raw text
  }
  return new KubeApiError(request.getHttpMethod(), new URL(request.getUrl()).pathname, status, reason, message);
}
