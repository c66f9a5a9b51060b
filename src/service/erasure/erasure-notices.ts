/**
 * The `deleted` diffs of an erasure: one, without text, to each recipient that held a diff about
 * an erased cell — those who received it hear that it is gone; nobody else is told it existed.
 */
import { randomUUID } from 'node:crypto';
import type { WrittenDiff } from '../../mesh/diff-writer.js';
import { toDiff } from '../../mesh/diff-row.js';
import type { Queryable } from '../../store/db.js';
import { allocateSeqsInInboxes, insertDeletedNotices } from '../../store/erasure-notice-repository.js';
import type { ErasureNotice } from '../../store/erasure-repository.js';

/**
 * Writes the notices inside the erasure's transaction in two statements for every inbox at once,
 * the inboxes locked in sorted order (as the diff writer locks them); the diffs come back in
 * inbox and sequence order.
 */
export async function writeErasureNotices(tx: Queryable, tenantId: string, notices: readonly ErasureNotice[]): Promise<WrittenDiff[]> {
  const byRecipient = new Map<string, ErasureNotice[]>();
  for (const notice of notices) {
    const held = byRecipient.get(notice.recipient_agent);
    if (held === undefined) byRecipient.set(notice.recipient_agent, [notice]);
    else held.push(notice);
  }
  const recipients = [...byRecipient.keys()].sort();
  const last = await allocateSeqsInInboxes(
    tx,
    tenantId,
    recipients.map((agent) => ({ agent, count: byRecipient.get(agent)?.length ?? 0 })),
  );
  const rows = await insertDeletedNotices(
    tx,
    tenantId,
    recipients.flatMap((recipient) => {
      const held = byRecipient.get(recipient) ?? [];
      const first = (last.get(recipient) ?? 0) - held.length + 1;
      return held.map((notice, i) => ({
        recipientAgent: recipient,
        diffId: randomUUID(),
        seq: first + i,
        nodeId: notice.node_id,
        beaconId: notice.beacon_id,
        similarity: Number(notice.similarity),
        cellType: notice.cell_type,
        salience: Number(notice.salience),
        sourceAgent: notice.source_agent,
        project: notice.project,
        sceneId: notice.scene_id,
        sourceId: notice.source_id,
      }));
    }),
  );
  const order = new Map(recipients.map((agent, i) => [agent, i]));
  return rows
    .map((row) => ({ tenantId, recipientAgent: row.recipient_agent, diff: toDiff(row), trimmed: 0 }))
    .sort((a, b) => (order.get(a.recipientAgent) ?? 0) - (order.get(b.recipientAgent) ?? 0) || a.diff.seq - b.diff.seq);
}
