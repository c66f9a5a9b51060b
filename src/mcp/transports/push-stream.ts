/**
 * The push of `GET /mcp` with `Accept: text/event-stream`: what lands in the caller's inbox, live,
 * as JSON-RPC notifications on a Server-Sent Events stream, from whichever replica produced it:
 *   - `notifications/resources/updated` for hyphae://inbox (and subscribed cells) when the MCP
 *     session (its `Mcp-Session-Id`) subscribed to it — on any replica, since subscriptions are
 *     stored — plus `notifications/resources/list_changed`;
 *   - `notifications/hyphae/diff`, one per diff, for clients that ask with `x-hyphae-diffs: on`;
 *   - `notifications/claude/channel` when the server offers Claude Code's channel and the client
 *     does not decline it (`x-hyphae-channel: off`): a digest of what arrived while away, then each
 *     memory, paced (features/push/channel-session.ts). These frames carry no id: where a channel resumes is the
 *     mark the facade keeps, not the stream's Last-Event-ID.
 * Event ids are inbox seqs, so a client reconnecting with `Last-Event-ID` resumes exactly after the
 * last diff it heard of; comment lines keep idle proxies from closing the stream. A client too slow
 * to read, or a backlog larger than the buffer bound, ends the stream after what was written (the
 * client resumes by Last-Event-ID) rather than buffering without bound.
 */
import type { FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { StreamDropReason } from '../../metrics/index.js';
import type { Diff } from '../../core/entities.js';
import { ERROR_SPECS, RateLimitedError, isHyphaeError } from '../../core/errors.js';
import type { MemoryFacade } from '../../service/memory-facade.js';
import { LiveStreams, SSE_HEARTBEAT, acceptsEventStream, sseEvent, sseOpening, startSseStream, SSE_HEARTBEAT_MS, SSE_MAX_BUFFERED_BYTES } from '../../surface-shared/index.js';
import { diffNotification, headerWantsDiffs, DIFFS_HEADER } from '../protocol/diff-extension.js';
import { RPC_INVALID_REQUEST } from '../protocol/json-rpc.js';
import type { JsonRpcNotificationMessage } from '../protocol/json-rpc.js';
import { toRpcError } from '../protocol/rpc-errors.js';
import { MCP_SESSION_HEADER, sessionKeyOf } from '../protocol/session-id.js';
import { mcpPrincipalOf } from './http-authentication.js';
import { codedError, sendRpcError } from './http-replies.js';
import { ResourceNotifier } from '../features/push/resource-notifications.js';
import { pushDroppedFrame, type PushDropMetrics } from '../features/push/push-drop.js';
import type { ChannelNotification } from '../features/push/channel-event.js';
import type { ChannelFacade, ChannelSettings } from '../features/push/channel-session.js';
import { ChannelSession } from '../features/push/channel-session.js';
import { CHANNEL_HEADER, headerDeclinesChannel } from '../features/push/channel-settings.js';

/** Structurally a subset of HyphaeMetrics. */
export interface PushStreamMetrics extends PushDropMetrics {
  addLiveStreams(delta: number): void;
  countDiffsDelivered(transport: 'sse', count: number): void;
}

export interface PushStreamOptions {
  readonly facade: Pick<MemoryFacade, 'subscribeDiffs' | 'resourceSubscriptions'> & ChannelFacade;
  readonly metrics?: PushStreamMetrics;
  /** Interval of the keep-alive comment; default 15 s. */
  readonly heartbeatMs?: number;
  /** A stream whose unsent bytes exceed this is ended (the client resumes by Last-Event-ID); default 1 MiB. */
  readonly maxBufferedBytes?: number;
  /** Reconnection delay suggested to clients (SSE `retry:`); default 2 s. */
  readonly retryMs?: number;
  /** Claude Code channel events on every stream that does not decline them; absent: off. */
  readonly channel?: ChannelSettings;
  /** Failures of a stream's background lookups (the channel's backlog, trust, mark). */
  readonly onError?: (error: unknown) => void;
}

export interface PushStream {
  /** The `GET /mcp` handler (runs after the /mcp authentication hook). */
  readonly handler: RouteHandlerMethod;
  /** Ends every open stream (server shutdown: open streams would otherwise hold it up). */
  closeAll(): void;
  readonly openStreams: number;
}

/** The SSE frame of one diff: a JSON-RPC notification whose event id is the inbox seq. */
function diffEvent(diff: Diff): string {
  return sseEvent('message', JSON.stringify(diffNotification(diff)), diff.seq);
}

/** A channel event's frame: no id (a channel resumes from the facade's mark). */
function channelEvent(notification: ChannelNotification): string {
  return sseEvent('message', JSON.stringify(notification));
}

/** A resource notification's frame; it carries the batch's last seq as id unless diff frames already do. */
function notificationEvent(message: JsonRpcNotificationMessage, seq: number | undefined): string {
  return sseEvent('message', JSON.stringify(message), seq);
}

/** `Last-Event-ID`: absent → undefined; a non-negative integer → it; anything else → null (invalid). */
function lastEventIdOf(request: FastifyRequest): number | undefined | null {
  const raw = request.headers['last-event-id'];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined || value.trim() === '') return undefined;
  return /^\d{1,15}$/.test(value.trim()) ? Number(value.trim()) : null;
}

export function createPushStream(options: PushStreamOptions): PushStream {
  const heartbeat = { everyMs: options.heartbeatMs ?? SSE_HEARTBEAT_MS, frame: SSE_HEARTBEAT };
  const maxBufferedBytes = options.maxBufferedBytes ?? SSE_MAX_BUFFERED_BYTES;
  const opening = sseOpening(options.retryMs ?? 2_000);
  const streams = new LiveStreams({ onCount: (delta) => options.metrics?.addLiveStreams(delta) });
  const countDiff = (): void => options.metrics?.countDiffsDelivered('sse', 1);
  const onDrop = (reason: StreamDropReason): string => {
    options.metrics?.countStreamsDropped('sse', reason);
    return pushDroppedFrame(reason, maxBufferedBytes);
  };

  const handler = async function pushStream(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    // Only an explicit text/event-stream asks for the stream: a browser's or curl's `*/*` is answered 405.
    if (!acceptsEventStream(request.headers.accept, { wildcards: false })) {
      await sendRpcError(reply.header('allow', 'POST'), 405, {
        code: RPC_INVALID_REQUEST,
        message: 'Method Not Allowed: GET /mcp needs Accept: text/event-stream',
      });
      return;
    }
    const principal = mcpPrincipalOf(request);
    if (principal === undefined) {
      await sendRpcError(reply, 401, codedError('UNAUTHENTICATED', 'missing or invalid API key'));
      return;
    }
    const afterSeq = lastEventIdOf(request);
    if (afterSeq === null) {
      await sendRpcError(reply, 400, { code: RPC_INVALID_REQUEST, message: 'Last-Event-ID must be a diff seq (a non-negative integer)' });
      return;
    }
    const sessionKey = sessionKeyOf(request.headers[MCP_SESSION_HEADER]);
    if (sessionKey === null) {
      await sendRpcError(reply, 400, { code: RPC_INVALID_REQUEST, message: 'Mcp-Session-Id must be at most 128 visible ASCII characters' });
      return;
    }
    const wantsDiffs = headerWantsDiffs(request.headers[DIFFS_HEADER]);

    // Diffs caught up during subscribe arrive before the headers are out: the stream holds them (bounded) until it starts.
    const stream = streams.stream({
      heartbeat,
      maxBufferedBytes,
      onDrop,
      // Closed only once started, so `subscription` is set by then.
      onClose: () => {
        notifier.close();
        void subscription.close().catch(() => undefined);
        void channel?.close();
      },
    });
    const notifier = new ResourceNotifier(
      async () => new Set(await options.facade.resourceSubscriptions(principal, sessionKey)),
      (messages, lastSeq) => {
        for (const message of messages) stream.send(notificationEvent(message, wantsDiffs ? undefined : lastSeq));
      },
      { listChanged: !wantsDiffs },
    );
    const channel =
      options.channel === undefined || headerDeclinesChannel(request.headers[CHANNEL_HEADER])
        ? undefined
        : new ChannelSession({
            facade: options.facade,
            principal,
            settings: options.channel,
            send: (notification) => stream.send(channelEvent(notification)),
            ...(options.onError === undefined ? {} : { onError: options.onError }),
          });
    let subscription: Awaited<ReturnType<MemoryFacade['subscribeDiffs']>>;
    try {
      subscription = await options.facade.subscribeDiffs(
        principal,
        (diff) => {
          if (wantsDiffs) stream.send(diffEvent(diff), countDiff);
          notifier.push(diff);
          channel?.push(diff);
        },
        afterSeq,
      );
    } catch (error) {
      notifier.close();
      void channel?.close();
      const status = isHyphaeError(error) ? ERROR_SPECS[error.code].httpStatus : 500;
      if (error instanceof RateLimitedError) reply.header('retry-after', String(error.retryAfterSeconds));
      await sendRpcError(reply, status, toRpcError(error));
      return;
    }

    reply.hijack();
    if (reply.raw.destroyed || request.raw.destroyed) {
      notifier.close();
      await subscription.close();
      await channel?.close();
      return;
    }
    // Subscribed first, so nothing falls between what the backlog covers and what the feed brings.
    channel?.start();
    // The server ended it (the key was revoked): the client learns at once, not at its next request.
    void subscription.ended?.then(() => stream.close());
    startSseStream(reply, stream, opening);
  };

  return {
    handler,
    closeAll: (): void => streams.closeAll(),
    get openStreams(): number {
      return streams.size;
    },
  };
}
