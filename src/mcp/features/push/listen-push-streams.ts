/**
 * The push of `subscriptions/listen` over Streamable HTTP (MCP 2026-07-28): the POST's response is
 * a Server-Sent Events stream that stays open — the acknowledgment, then the opted-in
 * notifications, comment lines as keep-alive. Events carry no ids (the revision has no
 * resumability). The client ends it by closing the stream; a server shutting down sends the
 * listen request's result (tagged with the subscription id) and closes it; a client too slow to
 * read is cut off, and re-issues the request like after any broken stream.
 */
import type { FastifyReply } from 'fastify';
import { ERROR_SPECS, UnauthenticatedError, isHyphaeError } from '../../../core/errors.js';
import type { Principal } from '../../../core/principal.js';
import type { MemoryFacade } from '../../../service/memory-facade.js';
import { writeSseHead } from '../../../surface-shared/index.js';
import type { JsonRpcId } from '../../protocol/json-rpc.js';
import { serializeError } from '../../protocol/json-rpc.js';
import { toRpcError } from '../../protocol/rpc-errors.js';
import type { ListenFilter } from '../../server/listen-filter.js';
import { statelessError } from '../../server/stateless-methods.js';
import { sendRpcError } from '../../transports/http-replies.js';
import { openListenPush, REVOKED_LISTEN_MESSAGE } from './listen-push.js';
import { listenPushDroppedError, type PushDropMetrics } from './push-drop.js';

export interface ListenPushStreamOptions {
  readonly facade: Pick<MemoryFacade, 'subscribeDiffs'>;
  /** The JSON-RPC result that ends a stream gracefully. */
  readonly closedResult: (id: JsonRpcId) => string;
  readonly log: (message: string) => void;
  /** Interval of the keep-alive comment; default 15 s. */
  readonly heartbeatMs?: number;
  /** A stream whose unsent bytes exceed this is cut off; default 1 MiB. */
  readonly maxBufferedBytes?: number;
  readonly metrics?: PushDropMetrics;
}

export interface ListenPushStreams {
  open(reply: FastifyReply, principal: Principal, id: JsonRpcId, filter: ListenFilter): Promise<void>;
  /** Ends every open stream gracefully (server shutdown). */
  closeAll(): void;
  readonly openStreams: number;
}

const STALLED_CLIENT_MS = 30_000;

function frame(json: string): string {
  return `event: message\ndata: ${json}\n\n`;
}

export function createListenPushStreams(options: ListenPushStreamOptions): ListenPushStreams {
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const maxBufferedBytes = options.maxBufferedBytes ?? 1024 * 1024;
  const graceful = new Set<() => void>();

  return {
    async open(reply, principal, id, filter): Promise<void> {
      const res = reply.raw;
      const state = { open: true, end: (_graceful: boolean): void => undefined };
      const write = (text: string): void => {
        if (!state.open) return;
        res.write(text);
        if (res.writableLength > maxBufferedBytes) {
          // Cut off, not buffered without bound: the listen's last message says why, so the client re-issues it.
          res.write(frame(serializeError(id, statelessError(toRpcError(listenPushDroppedError(maxBufferedBytes))))));
          options.metrics?.countStreamsDropped('listen', 'slow_reader');
          state.end(false);
        }
      };
      let push: Awaited<ReturnType<typeof openListenPush>>;
      try {
        push = await openListenPush({
          facade: options.facade,
          principal,
          id,
          filter,
          emit: (message) => write(frame(JSON.stringify(message))),
          onError: (error) => options.log(`listen push lookup failed: ${error instanceof Error ? error.name : 'unknown'}`),
        });
      } catch (error) {
        const status = isHyphaeError(error) ? ERROR_SPECS[error.code].httpStatus : 500;
        await sendRpcError(reply, status, statelessError(toRpcError(error)), id);
        return;
      }
      reply.hijack();
      // Only the response tells whether the client is still there: a POST's request stream has ended (and is destroyed) once its body was read.
      if (res.destroyed || res.writableEnded) {
        await push.close();
        return;
      }
      const heartbeat = setInterval(() => write(':\n\n'), heartbeatMs);
      const end = (gracefully: boolean): void => {
        if (!state.open) return;
        if (gracefully && !res.writableEnded) res.write(frame(options.closedResult(id)));
        state.open = false;
        clearInterval(heartbeat);
        graceful.delete(closeGracefully);
        void push.close().catch(() => undefined);
        if (!res.writableEnded) {
          res.end();
          // A client that never reads would keep the socket and its buffer forever.
          setTimeout(() => res.destroy(), STALLED_CLIENT_MS).unref();
        }
      };
      const closeGracefully = (): void => end(true);
      state.end = end;
      graceful.add(closeGracefully);
      res.on('close', () => end(false));
      res.on('error', () => end(false));
      writeSseHead(reply);
      push.start();
      // The key was revoked: the listen is answered with UNAUTHENTICATED and the stream ends (re-issuing gets 401).
      void push.ended?.then(() => {
        write(frame(serializeError(id, statelessError(toRpcError(new UnauthenticatedError(REVOKED_LISTEN_MESSAGE))))));
        end(false);
      });
    },
    closeAll(): void {
      for (const close of [...graceful]) close();
    },
    get openStreams(): number {
      return graceful.size;
    },
  };
}
