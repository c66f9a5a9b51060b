// Every request the operator's client issues, in order: the zero-writes check, the bench and the
// API-request metric count from it. Requests are recorded by the HTTP library client-node sends
// them through, so nothing reaches the API server unrecorded.
import { IsomorphicFetchHttpLibrary, wrapHttpLibrary } from '@kubernetes/client-node';
import type { HttpLibrary, RequestContext, ResponseContext } from '@kubernetes/client-node';
import type { TlsAgentPool } from './tls-agent-pool.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestRecord {
  method: HttpMethod;
  path: string;
  status: number;
}

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

/**
 * client-node's fetch library, bounded by a timeout, sending over `agents`' keep-alive connections
 * and recording each answered request in `log`.
 */
export function recordingHttpLibrary(log: RequestLog, timeoutMs: number, agents: TlsAgentPool): HttpLibrary {
  const fetchLibrary = new IsomorphicFetchHttpLibrary();
  return wrapHttpLibrary({
    async send(request: RequestContext): Promise<ResponseContext> {
      request.setSignal(AbortSignal.timeout(timeoutMs));
      const built = request.getAgent();
      if (built) request.setAgent(agents.agentFor(built));
      const response = await fetchLibrary.send(request).toPromise();
      log.add({ method: request.getHttpMethod() as HttpMethod, path: new URL(request.getUrl()).pathname, status: response.httpStatusCode });
      return response;
    },
  });
}
