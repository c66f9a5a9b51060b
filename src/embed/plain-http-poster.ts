/**
 * POSTs to one plain-HTTP endpoint over keep-alive TCP connections of its own: the request in one
 * write, the reply read by Http1ReplyParser. The embedder's endpoint is a worker on loopback or in
 * the cluster, on every store's and recall's path, and node:http's requests, agent and streams cost
 * 1.7× this per call there (docs/embeddings.md).
 */
import { connect, type Socket } from 'node:net';
import { Http1ReplyParser, type Http1Reply } from './http1-reply-parser.js';

/** Idle connections close after this long; a server's own keep-alive timeout may close them sooner. */
const IDLE_MS = 10_000;
/** Idle connections kept at most; more concurrent calls than this open connections that close after them. */
const MAX_IDLE = 32;
/** Header names and values may not break the request's framing. */
const UNSAFE_HEADER = /[\r\n\0]/;

/** A reused connection the server had closed before the request reached it: try a fresh one. */
class StaleConnectionError extends Error {}

export class PlainHttpPoster {
  private readonly host: string;
  private readonly port: number;
  private readonly target: string;
  private readonly hostHeader: string;
  /** Idle connections and what closes each one should it end or idle out. */
  private readonly idle = new Map<Socket, () => void>();
  private readonly open = new Set<Socket>();
  private closed = false;

  constructor(url: URL) {
    this.host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    this.port = url.port === '' ? 80 : Number(url.port);
    this.target = `${url.pathname}${url.search}`;
    this.hostHeader = url.host;
  }

  /** Resolves with the whole reply; rejects on a network failure or when none came within `timeoutMs`. */
  async post(body: string, headers: Readonly<Record<string, string>>, timeoutMs: number): Promise<Http1Reply> {
    const request = this.requestText(body, headers);
    const reused = this.takeIdle();
    if (reused !== undefined) {
      try {
        return await this.exchange(reused, request, timeoutMs, true);
      } catch (error) {
        if (!(error instanceof StaleConnectionError)) throw error;
      }
    }
    return this.exchange(this.connect(), request, timeoutMs, false);
  }

  close(): void {
    this.closed = true;
    for (const socket of this.open) socket.destroy();
    this.open.clear();
    this.idle.clear();
  }

  private requestText(body: string, headers: Readonly<Record<string, string>>): string {
    let text = `POST ${this.target} HTTP/1.1\r\nhost: ${this.hostHeader}\r\n`;
    for (const [name, value] of Object.entries(headers)) {
      if (UNSAFE_HEADER.test(name) || UNSAFE_HEADER.test(value)) throw new TypeError(`the ${name.replace(UNSAFE_HEADER, '')} header holds a line break`);
      text += `${name}: ${value}\r\n`;
    }
    return `${text}content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  }

  private connect(): Socket {
    const socket = connect({ host: this.host, port: this.port, noDelay: true });
    this.open.add(socket);
    socket.once('close', () => this.open.delete(socket));
    if (this.closed) socket.destroy();
    return socket;
  }

  private takeIdle(): Socket | undefined {
    for (const [socket, drop] of this.idle) {
      this.idle.delete(socket);
      socket.off('data', drop).off('error', drop).off('end', drop).off('timeout', drop);
      socket.setTimeout(0);
      if (socket.destroyed || !socket.writable) continue;
      socket.ref();
      return socket;
    }
    return undefined;
  }

  /** Back to the idle list, unreferenced (an idle connection must not keep the process alive), closed when it ends or idles out. */
  private release(socket: Socket): void {
    if (this.closed || this.idle.size >= MAX_IDLE) {
      socket.destroy();
      return;
    }
    const drop = (): void => {
      this.idle.delete(socket);
      socket.destroy();
    };
    socket.on('data', drop).on('error', drop).on('end', drop).on('timeout', drop);
    socket.setTimeout(IDLE_MS);
    socket.unref();
    this.idle.set(socket, drop);
  }

  private exchange(socket: Socket, request: string, timeoutMs: number, reused: boolean): Promise<Http1Reply> {
    return new Promise((resolve, reject) => {
      const parser = new Http1ReplyParser();
      let answered = false;
      const detach = (): void => {
        clearTimeout(timer);
        socket.off('data', onData).off('end', onEnd).off('close', onEnd).off('error', onError);
      };
      const fail = (error: Error): void => {
        detach();
        socket.destroy();
        reject(reused && !answered ? new StaleConnectionError(error.message, { cause: error }) : error);
      };
      const finish = (reply: Http1Reply): void => {
        detach();
        if (reply.keepAlive) this.release(socket);
        else socket.destroy();
        resolve(reply);
      };
      const onData = (chunk: Buffer): void => {
        answered = true;
        let reply: Http1Reply | undefined;
        try {
          reply = parser.push(chunk);
        } catch (error) {
          fail(error as Error);
          return;
        }
        if (reply !== undefined) finish(reply);
      };
      const onEnd = (): void => {
        const reply = parser.end();
        if (reply !== undefined) finish(reply);
        else fail(new Error('the connection closed before the reply was complete'));
      };
      const onError = (error: Error): void => fail(error);
      const timer = setTimeout(() => {
        reused = false;
        fail(new Error(`no reply within ${timeoutMs} ms`));
      }, timeoutMs);
      socket.on('data', onData).on('end', onEnd).on('close', onEnd).on('error', onError);
      socket.write(request);
    });
  }
}
