/**
 * WatchDiffs: the caller's new diffs as a server stream, from whichever replica produced them (the
 * facade's live feed, as MCP's SSE stream uses it). With after_seq the feed first catches up from
 * the inbox, so a client resuming with the last seq it received misses nothing and sees nothing
 * twice. The subscription is released whenever the stream ends: client cancellation, deadline,
 * server shutdown (UNAVAILABLE), a revoked key (UNAUTHENTICATED) or a client too slow to read (UNAVAILABLE once
 * the buffered diffs are sent; it resumes from the last seq).
 */
import type { Diff } from '../core/entities.js';
import { InvalidArgumentError, UnauthenticatedError, UnavailableError } from '../core/errors.js';
import type { Principal } from '../core/principal.js';
import type { MemoryFacade } from '../service/memory-facade.js';
import { WatchDiffsResponseSchema, type WatchDiffsResponse } from './gen/hyphae/v1/memory_pb.js';
import { messageOf } from './message-mapping.js';

/** Structurally a subset of HyphaeMetrics. */
export interface WatchDiffsMetrics {
  addLiveStreams(delta: number): void;
  countDiffsDelivered(transport: 'grpc', count: number): void;
}

export interface WatchDiffsOptions {
  readonly maxBufferedDiffs: number;
  readonly metrics?: WatchDiffsMetrics;
  /** Aborted when the server drains: open streams end with UNAVAILABLE, so clients resume elsewhere. */
  readonly shutdown?: AbortSignal;
}

type StreamState = 'open' | 'stopped' | 'revoked' | 'overflow';

function checkedAfterSeq(afterSeq: bigint | undefined): number | undefined {
  if (afterSeq === undefined) return undefined;
  if (afterSeq >= 0n && afterSeq <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(afterSeq);
  throw new InvalidArgumentError('after_seq must be a non-negative inbox seq', [{ path: 'after_seq', message: 'must be a non-negative integer' }]);
}

export async function* watchDiffs(
  facade: Pick<MemoryFacade, 'subscribeDiffs'>,
  principal: Principal,
  afterSeq: bigint | undefined,
  signal: AbortSignal,
  options: WatchDiffsOptions,
): AsyncGenerator<WatchDiffsResponse> {
  const resumeAfter = checkedAfterSeq(afterSeq);
  const pending: Diff[] = [];
  // Widened: the listener and abort handler change it behind the loop's back.
  let state = 'open' as StreamState;
  let wake: (() => void) | undefined;
  const settle = (next: StreamState): void => {
    if (state === 'open') state = next;
    wake?.();
  };
  const subscription = await facade.subscribeDiffs(
    principal,
    (diff) => {
      if (state !== 'open') return;
      // Beyond the bound the stream ends after what it holds; the client resumes from its last seq.
      if (pending.length >= options.maxBufferedDiffs) settle('overflow');
      else pending.push(diff);
      wake?.();
    },
    resumeAfter,
  );
  options.metrics?.addLiveStreams(1);
  // Cancellation, deadline and shutdown all abort the call's signal; a parked loop must wake to end.
  const onAbort = (): void => settle('stopped');
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) onAbort();
  void subscription.ended?.then(() => settle('revoked'));
  let lastSeq = resumeAfter;
  try {
    for (;;) {
      const diff = pending.shift();
      if (diff !== undefined) {
        lastSeq = diff.seq;
        yield messageOf(WatchDiffsResponseSchema, { diff });
        options.metrics?.countDiffsDelivered('grpc', 1);
        continue;
      }
      if (state === 'stopped') {
        if (options.shutdown?.aborted === true) throw new UnavailableError('the server is shutting down; resume with after_seq set to the last seq received', { retryAfterSeconds: 1 });
        return;
      }
      if (state === 'revoked') throw new UnauthenticatedError('the API key of this stream was revoked');
      if (state === 'overflow') {
        throw new UnavailableError('the stream fell behind; resume with after_seq set to the last seq received', {
          retryAfterSeconds: 1,
          details: lastSeq === undefined ? {} : { resume_after_seq: lastSeq },
        });
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    options.metrics?.addLiveStreams(-1);
    await subscription.close();
  }
}
