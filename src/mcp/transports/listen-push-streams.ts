/**
 * The push of `subscriptions/listen` over Streamable HTTP (MCP 2026-07-28): the POST's response is
 * a Server-Sent Events stream that stays open — the acknowledgment, then the opted-in
 * notifications, comment lines as keep-alive. Events carry no ids (the revision has no
 * resumability). The client ends it by closing the stream; a server shutting down sends the
 * listen request's result (tagged with the subscription id) and closes it; a client too slow to
 * read is cut off, and re-issues the request like after any broken stream.
 */
import type { FastifyReply } from 'fastify';
import { ERROR_SPECS, UnauthenticatedError, isHyphaeError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import type { MemoryFacade } from '../../service/memory-facade.js';
import { LiveStreams, sseEvent, startSseStream, SSE_HEARTBEAT_MS, SSE_MAX_BUFFERED_BYTES } from '../../surface-shared/index.js';
import type { JsonRpcId } from '../protocol/json-rpc.js';
import { serializeError } from '../protocol/json-rpc.js';
import { toRpcError } from '../protocol/rpc-errors.js';
import type { ListenFilter } from '../server/listen-filter.js';
import { statelessError } from '../server/stateless-methods.js';
import { sendRpcError } from './http-replies.js';
import { openListenPush, REVOKED_LISTEN_MESSAGE, type ListenPush } from '../features/push/listen-push.js';
import { listenPushDroppedError, type PushDropMetrics } from '../features/push/push-drop.js';

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

function frame(json: string): string {
  return sseEvent('message', json);
}

/** The listen's answer as an error, the last frame of its stream. */
function errorFrame(id: JsonRpcId, error: unknown): string {
  return frame(serializeError(id, statelessError(toRpcError(error))));
}

export function createListenPushStreams(options: ListenPushStreamOptions): ListenPushStreams {
  const heartbeat = { everyMs: options.heartbeatMs ?? SSE_HEARTBEAT_MS, frame: ':\n\n' };
  const maxBufferedBytes = options.maxBufferedBytes ?? SSE_MAX_BUFFERED_BYTES;
  const streams = new LiveStreams();

  return {
    async open(reply, principal, id, filter): Promise<void> {
      let push: ListenPush | undefined;
      const stream = streams.stream({
        heartbeat,
        maxBufferedBytes,
        // Cut off, not buffered without bound: the listen's last message says why, so the client re-issues it.
        onDrop: (reason) => {
          options.metrics?.countStreamsDropped('listen', reason);
          return errorFrame(id, listenPushDroppedError(maxBufferedBytes));
        },
        onClose: () => void push?.close().catch(() => undefined),
        farewell: () => frame(options.closedResult(id)),
      });
      try {
        push = await openListenPush({
          facade: options.facade,
          principal,
          id,
          filter,
          emit: (message) => stream.send(frame(JSON.stringify(message))),
          onError: (error) => options.log(`listen push lookup failed: ${error instanceof Error ? error.name : 'unknown'}`),
        });
      } catch (error) {
        const status = isHyphaeError(error) ? ERROR_SPECS[error.code].httpStatus : 500;
        await sendRpcError(reply, status, statelessError(toRpcError(error)), id);
        return;
      }
      reply.hijack();
      const res = reply.raw;
      // Only the response tells whether the client is still there: a POST's request stream has ended (and is destroyed) once its body was read.
      if (res.destroyed || res.writableEnded) {
        await push.close();
        return;
      }
      startSseStream(reply, stream);
      push.start();
      // The key was revoked: the listen is answered with UNAUTHENTICATED and the stream ends (re-issuing gets 401).
      void push.ended?.then(() => stream.close(errorFrame(id, new UnauthenticatedError(REVOKED_LISTEN_MESSAGE))));
    },
    closeAll: (): void => streams.closeAll(),
    get openStreams(): number {
      return streams.size;
    },
  };
}
