/** The head of an SSE response on a hijacked reply: the headers the app set (request id, security), then the stream's own. */
import type { FastifyReply } from 'fastify';

export function writeSseHead(reply: FastifyReply): void {
  const appHeaders = Object.fromEntries(Object.entries(reply.getHeaders()).filter(([, value]) => value !== undefined)) as Record<
    string,
    string | number | string[]
  >;
  reply.raw.writeHead(200, {
    ...appHeaders,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    // Reverse proxies (nginx) must not buffer the stream.
    'x-accel-buffering': 'no',
  });
}
