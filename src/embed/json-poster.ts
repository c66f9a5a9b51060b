/**
 * POSTs JSON to one endpoint over node:http / node:https with keep-alive connections. The embedder
 * is on every store's and recall's path: fetch (undici, its web streams and abort signals) cost
 * ~2.1 ms of CPU per call to a loopback worker where this costs ~0.7 ms (docs/embeddings.md).
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface JsonReply {
  readonly status: number;
  /** A response header, lower-case name. */
  header(name: string): string | undefined;
  readonly body: string;
}

/** Connections kept open per endpoint: one per concurrent call, the rest closed after a while. */
const KEEP_ALIVE_MS = 10_000;

export class JsonPoster {
  private readonly url: URL;
  private readonly agent: HttpAgent | HttpsAgent;
  private readonly send: typeof httpRequest;

  constructor(endpoint: string) {
    this.url = new URL(endpoint);
    const secure = this.url.protocol === 'https:';
    this.agent = secure ? new HttpsAgent({ keepAlive: true, keepAliveMsecs: KEEP_ALIVE_MS }) : new HttpAgent({ keepAlive: true, keepAliveMsecs: KEEP_ALIVE_MS });
    this.send = secure ? httpsRequest : httpRequest;
  }

  /** Resolves with the whole reply; rejects on a network failure or when none came within `timeoutMs`. */
  post(body: string, headers: Readonly<Record<string, string>>, timeoutMs: number): Promise<JsonReply> {
    return new Promise((resolve, reject) => {
      const request = this.send(this.url, {
        agent: this.agent,
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      });
      const timer = setTimeout(() => request.destroy(new Error(`no reply within ${timeoutMs} ms`)), timeoutMs);
      request.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      request.on('response', (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', (error) => {
          clearTimeout(timer);
          reject(error);
        });
        response.on('end', () => {
          clearTimeout(timer);
          const header = (name: string): string | undefined => {
            const value = response.headers[name];
            return Array.isArray(value) ? value[0] : value;
          };
          resolve({ status: response.statusCode ?? 0, header, body: Buffer.concat(chunks).toString('utf8') });
        });
      });
      request.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
