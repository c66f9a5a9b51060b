/**
 * The server-owned inbox cursor: one transaction locks the agent's inbox row, reads the next
 * page after the cursor and advances it. Concurrent drains by the same agent queue on the row
 * lock, so no diff is returned twice and none is skipped.
 */
import type { DrainedInbox } from '../core/entities.js';
import type { Db } from '../store/db.js';
import { advanceInboxCursor, diffsAfterSeq, lockInbox } from '../store/diff-repository.js';
import { toDiff } from './diff-row.js';

export async function drainInbox(db: Db, tenantId: string, agent: string, pageSize: number): Promise<DrainedInbox> {
  return db.transaction(async (tx) => {
    const inbox = await lockInbox(tx, tenantId, agent);
    if (inbox === null) return { diffs: [], has_more: false };
    const rows = await diffsAfterSeq(tx, tenantId, agent, inbox.cursorSeq, pageSize + 1);
    const page = rows.slice(0, pageSize).map(toDiff);
    const last = page[page.length - 1];
    if (last !== undefined) await advanceInboxCursor(tx, tenantId, agent, last.seq);
    return { diffs: page, has_more: rows.length > pageSize };
  });
}
