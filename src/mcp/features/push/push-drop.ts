/**
 * What a push says when backpressure ends it. Its client read more slowly than the server wrote,
 * or the catch-up it asked for outgrew the buffer bound: rather than buffer without bound, the
 * server writes one last message saying so, ends the push, and counts it in
 * hyphae_live_streams_dropped_total. GET /mcp clients reconnect with Last-Event-ID and lose
 * nothing; a subscriptions/listen is re-issued.
 */
import { UnavailableError } from '../../../core/errors.js';
import type { StreamDropReason, StreamDropTransport } from '../../../metrics/index.js';
import { sseEvent } from '../../../surface-shared/index.js';

export const STREAM_DROPPED_METHOD = 'notifications/hyphae/stream_dropped';

/** Structurally a subset of HyphaeMetrics. */
export interface PushDropMetrics {
  countStreamsDropped(transport: StreamDropTransport, reason: StreamDropReason): void;
}

/** The last message of a dropped GET /mcp stream (a JSON-RPC notification; no event id, so Last-Event-ID stays on the last diff). */
export function pushDroppedFrame(reason: StreamDropReason, maxBufferedBytes: number): string {
  const message = {
    jsonrpc: '2.0',
    method: STREAM_DROPPED_METHOD,
    params: { reason, max_buffered_bytes: maxBufferedBytes, resume: 'reconnect with Last-Event-ID set to the last event id received' },
  };
  return sseEvent('message', JSON.stringify(message));
}

/** The error that answers a listen dropped by backpressure. */
export function listenPushDroppedError(maxBufferedBytes: number): UnavailableError {
  return new UnavailableError('the listen stream was dropped: the client read too slowly; re-issue subscriptions/listen', {
    details: { reason: 'slow_reader', max_buffered_bytes: maxBufferedBytes },
  });
}
