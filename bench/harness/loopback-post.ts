import { type Agent, type IncomingHttpHeaders, type OutgoingHttpHeaders, request } from 'node:http';

export interface LoopbackResponse {
  readonly status: number;
  readonly body: string;
  readonly headers: IncomingHttpHeaders;
}

/**
 * POST `body` as JSON to 127.0.0.1:`port` over `agent`, keyed by `x-hyphae-key` (none when `key` is
 * undefined: `headers` carry the credential); resolves with the status and the whole body.
 */
export function postJson(agent: Agent, port: number, path: string, key: string | undefined, body: unknown, headers: OutgoingHttpHeaders = {}): Promise<LoopbackResponse> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers, 'content-length': Buffer.byteLength(payload), ...(key === undefined ? {} : { 'x-hyphae-key': key }) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
