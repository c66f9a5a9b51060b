/**
 * The `deleted` diffs of an erasure: one, without text, to each recipient that held a diff about
 * an erased cell — those who received it hear that it is gone; nobody else is told it existed.
 */
import { randomUUID } from 'node:crypto';
import type { WrittenDiff } from '../../mesh/diff-writer.js';
import { toDiff } from '../../mesh/diff-row.js';
import type { Queryable } from '../../store/db.js';
import { allocateInboxSeqs, insertInboxDiffs } from '../../store/diff-repository.js';
import type { ErasureNotice } from '../../store/erasure-repository.js';

/** Writes the notices inside the erasure's transaction, recipients in sorted order (as the diff writer locks inboxes). */
export async function writeErasureNotices(tx: Queryable, tenantId: string, notices: readonly ErasureNotice[]): Promise<WrittenDiff[]> {
  const byRecipient = new Map<string, ErasureNotice[]>();
  for (const notice of notices) byRecipient.set(notice.recipient_agent, [...(byRecipient.get(notice.recipient_agent) ?? []), notice]);
  const written: WrittenDiff[] = [];
  for (const recipient of [...byRecipient.keys()].sort()) {
    const held = byRecipient.get(recipient) ?? [];
    const last = await allocateInboxSeqs(tx, tenantId, recipient, held.length);
    const rows = await insertInboxDiffs(
      tx,
      tenantId,
      recipient,
      held.map((notice, i) => ({
        diffId: randomUUID(),
        seq: last - held.length + 1 + i,
        op: 'deleted' as const,
        nodeId: notice.node_id,
        beaconId: notice.beacon_id,
        similarity: Number(notice.similarity),
        cellType: notice.cell_type,
        salience: Number(notice.salience),
        sourceAgent: notice.source_agent,
        project: notice.project,
        sceneId: notice.scene_id,
        preview: '',
        supersedes: null,
        sourceId: notice.source_id,
      })),
    );
    for (const row of rows) written.push({ tenantId, recipientAgent: recipient, diff: toDiff(row), trimmed: 0 });
  }
  return written;
}
