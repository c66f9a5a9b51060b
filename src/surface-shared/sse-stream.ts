/**
 * A live stream's wire on a hijacked fastify reply, as Server-Sent Events: the head (the headers
 * the app set — request id, security — then the stream's own), the frames every SSE route writes,
 * and the response as the stream's sink; the client's going closes the stream.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { LiveStream, StreamSink } from './live-stream.js';

/** The comment that keeps idle proxies from closing a stream. */
export const SSE_HEARTBEAT = ': heartbeat\n\n';

/** One event: `id` (when it has one), its name, its data on one line. */
export function sseEvent(event: string, data: string, id?: number): string {
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${data}\n\n`;
}

/** The first frame of a resumable stream: the reconnection delay suggested to clients. */
export function sseOpening(retryMs: number): string {
  return `retry: ${retryMs}\n: stream open\n\n`;
}

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

/** The response as a stream's sink: its unsent bytes are the socket's writable backlog. */
export function responseSink(res: ServerResponse): StreamSink {
  return {
    write: (frame) => void res.write(frame),
    get unsentBytes(): number {
      return res.writableLength;
    },
    get ended(): boolean {
      return res.writableEnded;
    },
    end: () => void res.end(),
    destroy: () => void res.destroy(),
  };
}

/** Starts `stream` on a hijacked reply: head, `opening`, then what it held; the client's going (or a socket error) closes it. */
export function startSseStream(reply: FastifyReply, stream: LiveStream, opening?: string): void {
  const res = reply.raw;
  const close = (): void => stream.close();
  res.on('close', close);
  res.on('error', close);
  writeSseHead(reply);
  stream.start(responseSink(res), opening);
}
