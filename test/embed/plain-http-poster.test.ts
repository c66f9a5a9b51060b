import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { PlainHttpPoster } from '../../src/embed/plain-http-poster.js';

interface Seen {
  readonly method: string | undefined;
  readonly url: string | undefined;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
  /** Which connection (in order of arrival) carried it. */
  readonly connection: number;
}

type Answer = (request: IncomingMessage, response: ServerResponse, seen: Seen) => void;

/** A real node:http server on loopback that records each request and answers it with `answer`. */
async function upstream(answer: Answer): Promise<{ url: URL; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  let connections = 0;
  const numbers = new WeakMap<object, number>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = { method: request.method, url: request.url, headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), connection: numbers.get(request.socket) ?? 0 };
      seen.push(entry);
      answer(request, response, entry);
    });
  });
  server.on('connection', (socket) => numbers.set(socket, ++connections));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return { url: new URL(`http://127.0.0.1:${port}/v1/embeddings?api-version=1`), seen, server };
}

const json = (response: ServerResponse, status: number, value: unknown): void => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(value));
};

describe('PlainHttpPoster against a node:http server on loopback', () => {
  const servers: Server[] = [];
  const posters: PlainHttpPoster[] = [];
  afterEach(async () => {
    posters.splice(0).forEach((p) => p.close());
    await Promise.all(
      servers.splice(0).map((s) => {
        s.closeAllConnections();
        return new Promise<void>((resolve) => s.close(() => resolve()));
      }),
    );
  });
  const start = async (answer: Answer): Promise<{ poster: PlainHttpPoster; seen: Seen[]; server: Server }> => {
    const { url, seen, server } = await upstream(answer);
    servers.push(server);
    const poster = new PlainHttpPoster(url);
    posters.push(poster);
    return { poster, seen, server };
  };

  it('sends the request whole and reuses one connection for calls one after another', async () => {
    const { poster, seen } = await start((_request, response, entry) => json(response, 200, { echo: JSON.parse(entry.body) as unknown }));
    for (const word of ['naïve', 'two', 'three']) {
      const reply = await poster.post(JSON.stringify({ input: word }), { accept: 'application/json', authorization: 'Bearer sk-1' }, 5_000);
      expect(reply.status).toBe(200);
      expect(reply.header('content-type')).toBe('application/json');
      expect(JSON.parse(reply.body)).toEqual({ echo: { input: word } });
    }
    expect(seen.map((s) => s.connection)).toEqual([1, 1, 1]);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/v1/embeddings?api-version=1' });
    expect(seen[0]?.headers).toMatchObject({ authorization: 'Bearer sk-1', accept: 'application/json', 'content-type': 'application/json', host: expect.stringMatching(/^127\.0\.0\.1:\d+$/) });
  });

  it('opens a connection per concurrent call and reads chunked replies', async () => {
    const { poster, seen } = await start((_request, response, entry) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"echo":');
      setTimeout(() => response.end(`${entry.body}}`), 20);
    });
    const replies = await Promise.all(['a', 'b', 'c'].map((input) => poster.post(JSON.stringify({ input }), {}, 5_000)));
    expect(replies.map((r) => JSON.parse(r.body) as unknown)).toEqual(['a', 'b', 'c'].map((input) => ({ echo: { input } })));
    expect(new Set(seen.map((s) => s.connection)).size).toBe(3);
    await poster.post('{}', {}, 5_000);
    expect(seen[3]?.connection).toBeLessThanOrEqual(3);
  });

  it('opens a new connection after a reply that closes its own, or after the server closed an idle one', async () => {
    const { poster, seen, server } = await start((_request, response, entry) => {
      if (entry.body === '"close"') response.setHeader('connection', 'close');
      json(response, 200, {});
    });
    await poster.post('"close"', {}, 5_000);
    await poster.post('"keep"', {}, 5_000);
    expect(seen.map((s) => s.connection)).toEqual([1, 2]);
    await poster.post('"keep"', {}, 5_000);
    server.closeIdleConnections();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await poster.post('"keep"', {}, 5_000);
    expect(seen.map((s) => s.connection)).toEqual([1, 2, 2, 3]);
  });

  it('retries on a fresh connection when a reused one dies unanswered, but not when a fresh one does', async () => {
    let requests = 0;
    const { poster, seen } = await start((request, response) => {
      requests += 1;
      if (requests === 2 || requests === 4) request.socket.destroy();
      else json(response, 200, { n: requests });
    });
    expect(JSON.parse((await poster.post('{}', {}, 5_000)).body)).toEqual({ n: 1 });
    expect(JSON.parse((await poster.post('{}', {}, 5_000)).body)).toEqual({ n: 3 });
    expect(seen.map((s) => s.connection)).toEqual([1, 1, 2]);
    // Connection 2 is reused for request 4, which dies: retried on connection 3, whose request 5 is answered.
    expect(JSON.parse((await poster.post('{}', {}, 5_000)).body)).toEqual({ n: 5 });
    poster.close();
    requests = 1;
    const fresh = new PlainHttpPoster(new URL(`http://127.0.0.1:${(servers[0]?.address() as { port: number }).port}/`));
    posters.push(fresh);
    await expect(fresh.post('{}', {}, 5_000)).rejects.toThrow();
    expect(seen).toHaveLength(6);
  });

  it('fails when no reply comes in time, when nothing listens, and on a header that would break the request', async () => {
    const { poster, seen } = await start(() => undefined);
    await expect(poster.post('{}', {}, 100)).rejects.toThrow(/no reply within 100 ms/);
    await expect(new PlainHttpPoster(new URL('http://127.0.0.1:9/')).post('{}', {}, 5_000)).rejects.toThrow(/ECONNREFUSED/);
    await expect(poster.post('{}', { authorization: 'Bearer x\r\nx-injected: 1' }, 5_000)).rejects.toThrow(/line break/);
    expect(seen).toHaveLength(1);
  });
});
