/**
 * The console's only way to the server: the same REST API agents use, on the same origin, with the
 * signed-in credential — a key in `x-hyphae-key`, or an access token from the identity provider
 * as `Authorization: Bearer`. The console can do exactly what that credential can do.
 */
import type { ErrorBody } from './wire.js';

export const KEY_HEADER = 'x-hyphae-key';

/** What the console signed in with. */
export interface Credential {
  readonly kind: 'key' | 'bearer';
  readonly secret: string;
}

function credentialHeaders(credential: Credential): Record<string, string> {
  return credential.kind === 'key' ? { [KEY_HEADER]: credential.secret } : { authorization: `Bearer ${credential.secret}` };
}

/** A refusal from the API, with its stable code (`FORBIDDEN`, `NOT_FOUND`, …) and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export type QueryValues = Readonly<Record<string, string | number | boolean | undefined>>;

export interface ApiClient {
  get<T>(path: string, query?: QueryValues): Promise<T>;
  post<T>(path: string, body?: unknown): Promise<T>;
  delete(path: string, query?: QueryValues): Promise<void>;
  /** The raw streaming response of an SSE route (the caller reads its body). */
  stream(path: string, signal: AbortSignal): Promise<Response>;
}

export function withQuery(path: string, query: QueryValues = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== '') params.set(name, String(value));
  }
  const text = params.toString();
  return text === '' ? path : `${path}?${text}`;
}

async function errorOf(response: Response): Promise<ApiError> {
  try {
    const body = (await response.json()) as Partial<ErrorBody>;
    if (body.error !== undefined) return new ApiError(response.status, body.error.code, body.error.message);
  } catch {
    // Not our error shape (a proxy in front, say): the status says enough.
  }
  return new ApiError(response.status, 'HTTP_' + String(response.status), response.statusText || 'request failed');
}

export function createApiClient(credential: Credential, fetchImpl: typeof fetch = fetch.bind(globalThis)): ApiClient {
  async function send(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = { ...credentialHeaders(credential), accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetchImpl(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit',
      cache: 'no-store',
      signal,
    });
    if (!response.ok) throw await errorOf(response);
    return response;
  }
  return {
    async get<T>(path: string, query?: QueryValues): Promise<T> {
      return (await (await send('GET', withQuery(path, query))).json()) as T;
    },
    async post<T>(path: string, body: unknown = {}): Promise<T> {
      return (await (await send('POST', path, body)).json()) as T;
    },
    async delete(path: string, query?: QueryValues): Promise<void> {
      await send('DELETE', withQuery(path, query));
    },
    async stream(path: string, signal: AbortSignal): Promise<Response> {
      const response = await fetchImpl(path, {
        headers: { ...credentialHeaders(credential), accept: 'text/event-stream' },
        credentials: 'omit',
        cache: 'no-store',
        signal,
      });
      if (!response.ok) throw await errorOf(response);
      return response;
    },
  };
}
