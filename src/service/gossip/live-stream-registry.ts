/**
 * The open live streams of one process, by API key (docs/security.md, limits): at most `perKey` per key and
 * `perProcess` in all — one more is RATE_LIMITED with a Retry-After, before any database work —
 * and a revoked key's streams end: at once on the replica that revoked it, and within
 * `revocationCheckMs` on the others (one query for all open streams' keys per check). A stream
 * opened with an OAuth access token has no key to revoke: at the first check past its token's
 * `expiresAt` it ends — or, for an introspected token, asks the issuer again (`recheck`) and
 * goes on until the next answer is due, ending once the token is revoked or cannot be checked.
 */
import { HyphaeError, RateLimitedError, UnavailableError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import type { LiveSubscription } from '../memory-facade.js';

/** What an access token's stream is held by: the principal's `expiresAt` and, when it has one, its `recheck`. */
export type StreamLease = Pick<Principal, 'expiresAt' | 'recheck'>;

export interface LiveStreamLimits {
  readonly perKey: number;
  readonly perProcess: number;
}

export interface LiveStreamRegistryOptions extends LiveStreamLimits {
  /** Which of these key ids are revoked; checked every `revocationCheckMs` while streams are open. */
  readonly revokedAmong: (keyIds: readonly string[]) => Promise<readonly string[]>;
  readonly revocationCheckMs: number;
  readonly onError: (error: unknown) => void;
  readonly now?: () => number;
}

/** Suggested wait before opening a stream again once a quota is full. */
export const STREAM_QUOTA_RETRY_SECONDS = 10;

export class LiveStreamRegistry {
  private readonly byKey = new Map<string, Set<() => Promise<void>>>();
  /** Streams opened with an access token: until when it is known valid (ms since the epoch), and how to check it again. */
  private readonly expiries = new Map<() => Promise<void>, { until: number; readonly recheck: (() => Promise<number>) | undefined }>();
  private total = 0;
  private timer: NodeJS.Timeout | undefined;
  private checking = false;

  constructor(private readonly options: LiveStreamRegistryOptions) {}

  get openStreams(): number {
    return this.total;
  }

  /** Streams open for one key on this process. */
  openFor(keyId: string): number {
    return this.byKey.get(keyId)?.size ?? 0;
  }

  /** Holds a slot for `keyId` while `open` runs; the returned subscription frees it on close. `lease`: an access token's principal. */
  async open(keyId: string, open: () => Promise<LiveSubscription>, lease: StreamLease = {}): Promise<LiveSubscription> {
    const held = this.byKey.get(keyId) ?? new Set<() => Promise<void>>();
    if (this.total >= this.options.perProcess) throw this.full('live_streams_per_process', this.options.perProcess);
    if (held.size >= this.options.perKey) throw this.full('live_streams_per_key', this.options.perKey);
    let subscription: LiveSubscription | undefined;
    let closed = false;
    let markEnded = (): void => undefined;
    const ended = new Promise<void>((resolve) => {
      markEnded = resolve;
    });
    const close = async (): Promise<void> => {
      if (closed) return;
      closed = true;
      markEnded();
      held.delete(close);
      this.expiries.delete(close);
      if (held.size === 0 && this.byKey.get(keyId) === held) this.byKey.delete(keyId);
      this.total -= 1;
      if (this.total === 0) this.stopTimer();
      await subscription?.close();
    };
    // The slot is taken before the first await, so concurrent opens cannot pass the quota.
    held.add(close);
    if (lease.expiresAt !== undefined) this.expiries.set(close, { until: lease.expiresAt, recheck: lease.recheck });
    this.byKey.set(keyId, held);
    this.total += 1;
    try {
      subscription = await open();
    } catch (error) {
      await close();
      throw error;
    }
    if (closed) await subscription.close();
    this.ensureTimer();
    return { close, ended };
  }

  /** Ends every stream of a key (it was revoked). */
  async closeKey(keyId: string): Promise<void> {
    await Promise.all([...(this.byKey.get(keyId) ?? [])].map((close) => close()));
  }

  async closeAll(): Promise<void> {
    this.stopTimer();
    await Promise.all([...this.byKey.values()].flatMap((set) => [...set]).map((close) => close()));
  }

  /** Tokens past their time are checked again or their streams end; then one query for the keys of every other open stream, and the revoked ones' streams end. */
  async checkRevocations(): Promise<void> {
    if (this.checking || this.byKey.size === 0) return;
    this.checking = true;
    try {
      const now = (this.options.now ?? Date.now)();
      await Promise.all([...this.expiries].filter(([, lease]) => lease.until <= now).map(([close, lease]) => this.renew(close, lease)));
      const keyIds = [...this.byKey].filter(([, held]) => [...held].some((close) => !this.expiries.has(close))).map(([keyId]) => keyId);
      if (keyIds.length === 0) return;
      for (const keyId of await this.options.revokedAmong(keyIds)) await this.closeKey(keyId);
    } catch (error) {
      this.options.onError(error);
    } finally {
      this.checking = false;
    }
  }

  /** An introspected token is asked about again and its stream goes on; any other, or one refused, ends. */
  private async renew(close: () => Promise<void>, lease: { until: number; readonly recheck: (() => Promise<number>) | undefined }): Promise<void> {
    if (lease.recheck !== undefined) {
      try {
        lease.until = await lease.recheck();
        return;
      } catch (error) {
        // A refusal (revoked, expired) is why the stream ends; an unreachable issuer or a fault is worth telling the operator.
        if (error instanceof UnavailableError || !(error instanceof HyphaeError)) this.options.onError(error);
      }
    }
    await close();
  }

  private full(quota: string, limit: number): RateLimitedError {
    return new RateLimitedError(STREAM_QUOTA_RETRY_SECONDS, { details: { quota, limit } });
  }

  private ensureTimer(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => void this.checkRevocations(), this.options.revocationCheckMs);
    this.timer.unref();
  }

  private stopTimer(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
