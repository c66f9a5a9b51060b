/**
 * One session's Claude Code channel, whatever carries it (stdio lines, the GET /mcp stream): each
 * diff that reaches the agent is weighed by its author's trust (below the gate it is withheld and
 * stays in the inbox only), paced (channel-pacer.ts) and sent as notifications/claude/channel.
 * The session begins by announcing, as one digest, what reached the inbox while no session of the
 * agent dealt with it — read from the channel mark the facade keeps across processes and replicas.
 * The mark is raised before each event goes out (events are paced, so these writes are few), so a
 * session opened the next moment, here or on another replica, never announces it again; what the
 * trust gate withholds raises it lazily (at most once per `markEveryMs`, and on close).
 */
import type { Diff } from '../../../core/entities.js';
import type { Principal } from '../../../core/principal.js';
import type { MemoryFacade } from '../../../service/memory-facade.js';
import type { ChannelNotification, ChannelTally } from './channel-event.js';
import { channelNotification } from './channel-event.js';
import { SYSTEM_CLOCK, type StreamClock } from '../../../surface-shared/index.js';
import { ChannelPacer } from './channel-pacer.js';

/** What the channel needs from the facade: the backlog and mark it keeps, and authors' trust. */
export type ChannelFacade = Pick<MemoryFacade, 'channelBacklog' | 'markChannelSettled' | 'authorTrust'>;

export interface ChannelSettings {
  /** Authors below this trust get no event (their diffs stay in the inbox). */
  readonly minTrust: number;
  /** Single events per minute; beyond, one digest per interval. */
  readonly maxPerMinute: number;
  /** For tests: how long a burst must be quiet before its digest, and the digest interval. */
  readonly digestSettleMs?: number;
  readonly digestIntervalMs?: number;
}

export interface ChannelSessionOptions {
  readonly facade: ChannelFacade;
  readonly principal: Principal;
  readonly settings: ChannelSettings;
  readonly send: (notification: ChannelNotification) => void;
  readonly onError?: (error: unknown) => void;
  readonly clock?: StreamClock;
  /** The mark is written back at most this often (default 1 s) and once more on close. */
  readonly markEveryMs?: number;
}

const DEFAULT_MARK_EVERY_MS = 1_000;

class TallyOf implements ChannelTally {
  count = 0;
  readonly byType = new Map<string, number>();
  readonly byAuthor = new Map<string, number>();

  add(cellType: string, author: string, count: number): void {
    this.count += count;
    this.byType.set(cellType, (this.byType.get(cellType) ?? 0) + count);
    this.byAuthor.set(author, (this.byAuthor.get(author) ?? 0) + count);
  }
}

export class ChannelSession {
  private readonly pacer: ChannelPacer;
  private readonly clock: StreamClock;
  private readonly onError: (error: unknown) => void;
  /** Diffs and the start are handled one at a time, in arrival order (trust lookups are async). */
  private queue: Promise<void> = Promise.resolve();
  /** How far the pacer has settled (an event it emitted may still be on its way out). */
  private settled = 0;
  /** Every seq at or below it went out or was withheld: what the mark may say on close. */
  private dealt = 0;
  /** Events emitted by the pacer and not yet sent (or dropped by a close). */
  private inFlight = 0;
  /** The highest seq written (or being written) to the mark. */
  private written = 0;
  private writing: Promise<void> = Promise.resolve();
  private cancelMark: (() => void) | undefined;
  private closed = false;

  constructor(private readonly options: ChannelSessionOptions) {
    this.clock = options.clock ?? SYSTEM_CLOCK;
    this.onError = options.onError ?? ((): void => undefined);
    this.pacer = new ChannelPacer({
      maxPerMinute: options.settings.maxPerMinute,
      clock: this.clock,
      ...(options.settings.digestSettleMs === undefined ? {} : { settleMs: options.settings.digestSettleMs }),
      ...(options.settings.digestIntervalMs === undefined ? {} : { intervalMs: options.settings.digestIntervalMs }),
      emit: (event, settledSeq) => {
        this.inFlight += 1;
        this.enqueue(async () => {
          try {
            if (this.closed) return;
            await this.writeMark(settledSeq);
            if (this.closed) return;
            options.send(channelNotification(event));
            // The last event on its way: what the gate withheld after it is dealt with too.
            this.dealt = Math.max(this.dealt, this.inFlight === 1 ? this.settled : settledSeq);
          } finally {
            this.inFlight -= 1;
          }
        });
      },
      onSettled: (seq) => this.settledThrough(seq),
    });
  }

  /** Announces what arrived while away (once, one digest); diffs pushed before it wait for it. */
  start(): void {
    this.enqueue(async () => {
      try {
        const backlog = await this.options.facade.channelBacklog(this.options.principal);
        const tally = new TallyOf();
        for (const group of backlog.groups) {
          if (await this.passes(group.source_agent)) tally.add(group.cell_type, group.source_agent, group.count);
        }
        this.pacer.resume(tally, backlog.head_seq);
      } catch (error) {
        this.onError(error);
        // Live memories still go out; what came while away stays in the inbox.
        this.pacer.resume(new TallyOf(), 0);
      }
    });
  }

  /** A diff that reached the agent (from the live feed, in seq order). */
  push(diff: Diff): void {
    this.enqueue(async () => {
      const trust = await this.trustOf(diff.source_agent);
      if (this.admits(trust)) this.pacer.offer(diff, trust);
      else this.pacer.withhold(diff.seq);
    });
  }

  /** Stops sending and writes the mark one last time. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.pacer.close();
    await this.queue;
    this.cancelMark?.();
    this.cancelMark = undefined;
    await this.writeMark(this.dealt);
  }

  private enqueue(task: () => Promise<void>): void {
    this.queue = this.queue.then(task).catch((error: unknown) => this.onError(error));
  }

  private async trustOf(agent: string): Promise<number | undefined> {
    try {
      return await this.options.facade.authorTrust(this.options.principal, agent);
    } catch (error) {
      this.onError(error);
      return undefined;
    }
  }

  private admits(trust: number | undefined): boolean {
    const minTrust = this.options.settings.minTrust;
    return minTrust <= 0 || (trust !== undefined && trust >= minTrust);
  }

  private async passes(agent: string): Promise<boolean> {
    return this.admits(await this.trustOf(agent));
  }

  private settledThrough(seq: number): void {
    this.settled = Math.max(this.settled, seq);
    if (this.inFlight === 0) this.dealt = this.settled;
    if (this.closed || this.cancelMark !== undefined || this.settled <= this.written) return;
    this.cancelMark = this.clock.after(this.options.markEveryMs ?? DEFAULT_MARK_EVERY_MS, () => {
      this.cancelMark = undefined;
      void this.writeMark(this.dealt);
    });
  }

  /** Raises the mark to `seq` (writes run one after another); resolves once it is written. */
  private writeMark(seq: number): Promise<void> {
    if (seq > this.written) {
      this.written = seq;
      this.writing = this.writing
        .then(() => this.options.facade.markChannelSettled(this.options.principal, seq))
        .catch((error: unknown) => this.onError(error));
    }
    return this.writing;
  }
}
