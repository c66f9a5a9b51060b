/**
 * The push of `GET /mcp` with `Accept: text/event-stream`: what lands in the caller's inbox, live,
 * as JSON-RPC notifications on a Server-Sent Events stream, from whichever replica produced it:
 *   - `notifications/resources/updated` for hyphae://inbox (and subscribed cells) when the MCP
 *     session (its `Mcp-Session-Id`) subscribed to it — on any replica, since subscriptions are
 *     stored — plus `notifications/resources/list_changed`;
 *   - `notifications/hyphae/diff`, one per diff, for clients that ask with `x-hyphae-diffs: on`;
 *   - `notifications/claude/channel` when the server offers Claude Code's channel and the client
 *     does not decline it (`x-hyphae-channel: off`): a digest of what arrived while away, then each
 *     memory, paced (channel-session.ts). These frames carry no id: where a channel resumes is the
 *     mark the facade keeps, not the stream's Last-Event-ID.
 * Event ids are inbox seqs, so a client reconnecting with `Last-Event-ID` resumes exactly after the
 * last diff it heard of; comment lines keep idle proxies from closing the stream. A client too slow
 * to read, or a backlog larger than the buffer bound, ends the stream after what was written (the
 * client resumes by Last-Event-ID) rather than buffering without bound.
 */
import type { FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { Diff } from '../../../core/entities.js';
import { ERROR_SPECS, RateLimitedError, isHyphaeError } from '../../../core/errors.js';
import type { MemoryFacade } from '../../../service/memory-facade.js';
import { acceptsEventStream, writeSseHead } from '../../../surface-shared/index.js';
import { diffNotification, headerWantsDiffs, DIFFS_HEADER } from '../../protocol/diff-extension.js';
import { RPC_INVALID_REQUEST } from '../../protocol/json-rpc.js';
import type { JsonRpcNotificationMessage } from '../../protocol/json-rpc.js';
import { toRpcError } from '../../protocol/rpc-errors.js';
import { MCP_SESSION_HEADER, sessionKeyOf } from '../../protocol/session-id.js';
import { mcpPrincipalOf } from '../../transports/http-authentication.js';
import { codedError, sendRpcError } from '../../transports/http-replies.js';
import { ResourceNotifier } from './resource-notifications.js';
import type { StreamDropReason } from '../../../metrics/index.js';
import { pushDroppedFrame, type PushDropMetrics } from './push-drop.js';
import type { ChannelNotification } from './channel-event.js';
import type { ChannelFacade, ChannelSettings } from './channel-session.js';
import { ChannelSession } from './channel-session.js';
import { CHANNEL_HEADER, headerDeclinesChannel } from './channel-settings.js';

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

const STALLED_CLIENT_MS = 30_000;

/** The SSE frame of one diff: a JSON-RPC notification whose event id is the inbox seq. */
export function diffEvent(diff: Diff): string {
  return `id: ${diff.seq}\nevent: message\ndata: ${JSON.stringify(diffNotification(diff))}\n\n`;
}

/** A channel event's frame: no id (a channel resumes from the facade's mark). */
function channelEvent(notification: ChannelNotification): string {
  return `event: message\ndata: ${JSON.stringify(notification)}\n\n`;
}

/** A resource notification's frame; it carries the batch's last seq as id unless diff frames already do. */
function notificationEvent(message: JsonRpcNotificationMessage, seq: number | undefined): string {
  return `${seq === undefined ? '' : `id: ${seq}\n`}event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/** `Last-Event-ID`: absent → undefined; a non-negative integer → it; anything else → null (invalid). */
function lastEventIdOf(request: FastifyRequest): number | undefined | null {
  const raw = request.headers['last-event-id'];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined || value.trim() === '') return undefined;
  return /^\d{1,15}$/.test(value.trim()) ? Number(value.trim()) : null;
}

export function createPushStream(options: PushStreamOptions): PushStream {
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const maxBufferedBytes = options.maxBufferedBytes ?? 1024 * 1024;
  const retryMs = options.retryMs ?? 2_000;
  const closers = new Set<() => void>();

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

    const res = reply.raw;
    // Diffs caught up during subscribe arrive before the headers are out: held (bounded) until then.
    const held: { frame: string; isDiff: boolean }[] = [];
    const state = { live: false, open: true, heldBytes: 0, overflow: false, drop: (_reason: StreamDropReason): void => undefined };
    const hold = (frame: string, isDiff: boolean): void => {
      if (state.overflow) return;
      held.push({ frame, isDiff });
      state.heldBytes += frame.length;
      // Beyond the bound the tail is dropped and the stream ends after what it holds: the client
      // resumes from the last id it received, so nothing is lost.
      if (state.heldBytes > maxBufferedBytes) state.overflow = true;
    };
    const send = (frame: string, isDiff: boolean): void => {
      if (!state.open) return;
      res.write(frame);
      if (isDiff) options.metrics?.countDiffsDelivered('sse', 1);
      // A client that does not keep up is ended (what was written still reaches it), not buffered without bound.
      if (res.writableLength > maxBufferedBytes) state.drop('slow_reader');
    };
    const out = (frame: string, isDiff: boolean): void => (state.live ? send(frame, isDiff) : hold(frame, isDiff));
    const notifier = new ResourceNotifier(
      async () => new Set(await options.facade.resourceSubscriptions(principal, sessionKey)),
      (messages, lastSeq) => {
        for (const message of messages) out(notificationEvent(message, wantsDiffs ? undefined : lastSeq), false);
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
            send: (notification) => out(channelEvent(notification), false),
            ...(options.onError === undefined ? {} : { onError: options.onError }),
          });
    let subscription: Awaited<ReturnType<MemoryFacade['subscribeDiffs']>>;
    try {
      subscription = await options.facade.subscribeDiffs(
        principal,
        (diff) => {
          if (wantsDiffs) out(diffEvent(diff), true);
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
    if (res.destroyed || request.raw.destroyed) {
      notifier.close();
      await subscription.close();
      await channel?.close();
      return;
    }
    // Subscribed first, so nothing falls between what the backlog covers and what the feed brings.
    channel?.start();
    const heartbeat = setInterval(() => {
      if (state.open) res.write(': heartbeat\n\n');
    }, heartbeatMs);
    const close = (): void => {
      if (!state.open) return;
      state.open = false;
      clearInterval(heartbeat);
      notifier.close();
      closers.delete(close);
      options.metrics?.addLiveStreams(-1);
      void subscription.close().catch(() => undefined);
      void channel?.close();
      if (!res.writableEnded) {
        res.end();
        // A client that never reads would keep the socket and its buffer forever.
        setTimeout(() => res.destroy(), STALLED_CLIENT_MS).unref();
      }
    };
    state.drop = (reason): void => {
      if (!state.open) return;
      res.write(pushDroppedFrame(reason, maxBufferedBytes));
      options.metrics?.countStreamsDropped('sse', reason);
      close();
    };
    closers.add(close);
    options.metrics?.addLiveStreams(1);
    res.on('close', close);
    res.on('error', close);
    // The server ended it (the key was revoked): the client learns at once, not at its next request.
    void subscription.ended?.then(close);

    writeSseHead(reply);
    res.write(`retry: ${retryMs}\n: stream open\n\n`);
    for (const { frame, isDiff } of held.splice(0)) send(frame, isDiff);
    if (state.overflow) state.drop('backlog');
    state.live = true;
  };

  return {
    handler,
    closeAll: (): void => {
      for (const close of [...closers]) close();
    },
    get openStreams(): number {
      return closers.size;
    },
  };
}
