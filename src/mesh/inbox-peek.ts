/**
 * Reading an inbox without draining it: the diffs after the server-owned cursor (and after a
 * caller's own seq), oldest first. No lock and no write, so a reader never delays a drain.
 */
import type { InboxPeek } from '../core/entities.js';
import type { Queryable } from '../store/db.js';
import { diffsAfterSeq, readInboxCursor } from '../store/diff-repository.js';
import { toDiff } from './diff-row.js';

export async function peekInbox(q: Queryable, tenantId: string, agent: string, limit: number, afterSeq = 0): Promise<InboxPeek> {
  const inbox = await readInboxCursor(q, tenantId, agent);
  if (inbox === null) return { diffs: [], has_more: false, cursor_seq: 0, head_seq: 0 };
  const rows = await diffsAfterSeq(q, tenantId, agent, Math.max(inbox.cursorSeq, afterSeq), limit + 1);
  return {
    diffs: rows.slice(0, limit).map(toDiff),
    has_more: rows.length > limit,
    cursor_seq: inbox.cursorSeq,
    head_seq: inbox.lastSeq,
  };
}
