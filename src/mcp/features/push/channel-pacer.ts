/**
 * The pace of one session's channel: a model should hear of a memory, not drown in them. At most
 * `maxPerMinute` memories go out one by one in any sliding minute; beyond that they gather into one
 * digest (counts by type and author), sent once the burst settles and never more than once per
 * interval. A memory waiting in a digest holds back later ones, so nothing overtakes it.
 *
 * A session begins with `resume`: what arrived while it was away, announced once as one digest, and
 * the seq that covers — memories at or below it are never announced again, one by one or otherwise.
 * Until then offered memories wait (the transport subscribes before it reads the backlog, so
 * nothing falls between the two). `settledSeq` is how far the session has dealt with its inbox
 * (announced, in a sent digest, or withheld by the trust gate); a later session resumes after it.
 * Nothing here is the durable path: the inbox keeps every memory until drain_inbox.
 */
import type { Diff } from '../../../core/entities.js';
import { hasExpired } from '../../../core/expiry.js';
import { SYSTEM_CLOCK, type StreamClock } from '../../../surface-shared/index.js';
import type { ChannelEvent, ChannelTally } from './channel-event.js';
import { digestChannelEvent, memoryChannelEvent } from './channel-event.js';

const MINUTE_MS = 60_000;
/** A burst's digest waits this long for the burst to end (default). */
export const DEFAULT_DIGEST_SETTLE_MS = 2_000;

export interface ChannelPacerOptions {
  /** Memories sent one by one in any sliding minute; 0 sends digests only. */
  readonly maxPerMinute: number;
  readonly emit: (event: ChannelEvent, settledSeq: number) => void;
  readonly clock?: StreamClock;
  /** A digest goes out once no memory joined it for this long… */
  readonly settleMs?: number;
  /** …or this long after its first memory, and never sooner than this after the previous digest. */
  readonly intervalMs?: number;
  /** Told whenever `settledSeq` moves (a digest, a memory, a withheld one), to remember it. */
  readonly onSettled?: (settledSeq: number) => void;
}

type Offer = { readonly kind: 'memory'; readonly diff: Diff; readonly trust: number | undefined } | { readonly kind: 'withheld'; readonly seq: number };

class TallyBuilder implements ChannelTally {
  count = 0;
  readonly byType = new Map<string, number>();
  readonly byAuthor = new Map<string, number>();

  add(diff: Diff): void {
    this.count += 1;
    const type = typeof diff.source_id === 'string' ? 'document' : diff.cell_type;
    this.byType.set(type, (this.byType.get(type) ?? 0) + 1);
    this.byAuthor.set(diff.source_agent, (this.byAuthor.get(diff.source_agent) ?? 0) + 1);
  }
}

export class ChannelPacer {
  private readonly clock: StreamClock;
  private readonly settleMs: number;
  private readonly intervalMs: number;
  /** Offers made before resume(), in arrival order; null once resumed. */
  private early: Offer[] | null = [];
  /** The highest seq offered or resumed through: anything at or below it is a duplicate. */
  private seenSeq = 0;
  private settled = 0;
  /** When the memories of the current minute went out one by one. */
  private readonly sentAt: number[] = [];
  private pending = new TallyBuilder();
  private firstPendingAt = 0;
  private lastPendingAt = 0;
  private lastDigestAt = Number.NEGATIVE_INFINITY;
  private cancelFlush: (() => void) | undefined;
  private closed = false;

  constructor(private readonly options: ChannelPacerOptions) {
    this.clock = options.clock ?? SYSTEM_CLOCK;
    this.settleMs = options.settleMs ?? DEFAULT_DIGEST_SETTLE_MS;
    this.intervalMs = options.intervalMs ?? MINUTE_MS;
  }

  /** How far this session has dealt with its inbox: every seq at or below it is announced or withheld. */
  get settledSeq(): number {
    return this.settled;
  }

  /** The session starts: what arrived while away (one digest, if any) covers every seq up to `throughSeq`. */
  resume(backlog: ChannelTally, throughSeq: number): void {
    if (this.closed || this.early === null) return;
    const early = this.early;
    this.early = null;
    this.seenSeq = Math.max(this.seenSeq, throughSeq);
    const digest = digestChannelEvent(backlog, 'reconnect');
    this.settle(throughSeq, digest);
    for (const offer of early) this.take(offer);
  }

  /** A memory that passed the trust gate. */
  offer(diff: Diff, trust: number | undefined): void {
    this.take({ kind: 'memory', diff, trust });
  }

  /** A memory the trust gate holds back: never announced, yet dealt with. */
  withhold(seq: number): void {
    this.take({ kind: 'withheld', seq });
  }

  /** Stops all sending; a digest still gathering is not sent (its memories stay unannounced, for the next session). */
  close(): void {
    this.closed = true;
    this.cancelFlush?.();
    this.cancelFlush = undefined;
  }

  private take(offer: Offer): void {
    if (this.closed) return;
    // A memory that expired before its turn is dealt with but never announced (docs/expiry.md).
    if (offer.kind === 'memory' && hasExpired(offer.diff.expires_at, Date.now())) {
      this.take({ kind: 'withheld', seq: offer.diff.seq });
      return;
    }
    if (this.early !== null) {
      this.early.push(offer);
      return;
    }
    const seq = offer.kind === 'memory' ? offer.diff.seq : offer.seq;
    if (seq <= this.seenSeq) return;
    this.seenSeq = seq;
    if (offer.kind === 'withheld') {
      if (this.pending.count === 0) this.settle(seq, null);
      return;
    }
    const now = this.clock.now();
    if (this.pending.count === 0 && this.singlesInWindow(now) < this.options.maxPerMinute) {
      this.sentAt.push(now);
      this.settle(seq, memoryChannelEvent(offer.diff, offer.trust));
      return;
    }
    if (this.pending.count === 0) this.firstPendingAt = now;
    this.lastPendingAt = now;
    this.pending.add(offer.diff);
    this.scheduleFlush(now);
  }

  private singlesInWindow(now: number): number {
    while (this.sentAt.length > 0 && (this.sentAt[0] ?? now) <= now - MINUTE_MS) this.sentAt.shift();
    return this.sentAt.length;
  }

  private scheduleFlush(now: number): void {
    const due = Math.max(Math.min(this.lastPendingAt + this.settleMs, this.firstPendingAt + this.intervalMs), this.lastDigestAt + this.intervalMs);
    this.cancelFlush?.();
    this.cancelFlush = this.clock.after(Math.max(0, due - now), () => this.flush());
  }

  private flush(): void {
    this.cancelFlush = undefined;
    if (this.closed || this.pending.count === 0) return;
    const digest = digestChannelEvent(this.pending, 'pace');
    this.pending = new TallyBuilder();
    this.lastDigestAt = this.clock.now();
    this.settle(this.seenSeq, digest);
  }

  private settle(seq: number, event: ChannelEvent | null): void {
    this.settled = Math.max(this.settled, seq);
    if (event !== null) this.options.emit(event, this.settled);
    this.options.onSettled?.(this.settled);
  }
}
