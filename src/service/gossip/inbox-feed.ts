/** The facade's side of gossip delivery: pull by time, drain and peek the inbox, and the live subscription. */
import type { DiffsSince, DrainedInbox, InboxPeek } from '../../core/entities.js';
import { UnavailableError } from '../../core/errors.js';
import { hasExpired } from '../../core/expiry.js';
import { drainInboxInputSchema, peekInboxInputSchema, pullDiffsInputSchema } from '../../core/schemas.js';
import { toDiff } from '../../mesh/diff-row.js';
import { drainInbox } from '../../mesh/inbox-drain.js';
import { peekInbox } from '../../mesh/inbox-peek.js';
import { diffsSince } from '../../store/diff-repository.js';
import { parseInput } from '../facade/input-validation.js';
import type { LiveSubscription, MemoryFacade } from '../memory-facade.js';
import type { FacadeContext } from '../facade/facade-context.js';
import { diffVisibleTo } from '../facade/visibility.js';

export type InboxFeedOperations = Pick<MemoryFacade, 'pullDiffs' | 'drainInbox' | 'peekInbox' | 'subscribeDiffs'>;

export function inboxFeedOperations(ctx: FacadeContext): InboxFeedOperations {
  return {
    async pullDiffs(principal, raw): Promise<DiffsSince> {
      const input = parseInput(pullDiffsInputSchema, raw);
      const rows = await diffsSince(ctx.db, principal.tenantId, principal.agent, input.since, input.limit);
      // next_since follows the last row read, visible or not, so hidden rows never stall the reader.
      return { diffs: rows.map(toDiff).filter(diffVisibleTo(principal)), next_since: rows[rows.length - 1]?.created_at ?? input.since };
    },

    async drainInbox(principal, raw): Promise<DrainedInbox> {
      const input = parseInput(drainInboxInputSchema, raw);
      const drained = await drainInbox(ctx.db, principal.tenantId, principal.agent, input.page_size);
      return { ...drained, diffs: drained.diffs.filter(diffVisibleTo(principal)) };
    },

    async peekInbox(principal, raw): Promise<InboxPeek> {
      const input = parseInput(peekInboxInputSchema, raw);
      const peeked = await peekInbox(ctx.db, principal.tenantId, principal.agent, input.limit, input.after_seq);
      return { ...peeked, diffs: peeked.diffs.filter(diffVisibleTo(principal)) };
    },

    async subscribeDiffs(principal, listener, afterSeq): Promise<LiveSubscription> {
      const feed = ctx.diffFeed;
      if (feed === undefined) throw new UnavailableError('live push not configured');
      const visible = diffVisibleTo(principal);
      return ctx.streams.open(
        principal.keyId,
        // A diff of a cell that expired before it could be pushed is not pushed (docs/expiry.md).
        () => feed.subscribe(principal.tenantId, principal.agent, (diff) => (visible(diff) && !hasExpired(diff.expires_at, Date.now()) ? listener(diff) : undefined), afterSeq),
        principal,
      );
    },
  };
}
