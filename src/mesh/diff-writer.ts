/**
 * Writes the diffs of one cell change into the inboxes of the beacons' owners, one per owner, inside
 * the caller's transaction (transactional outbox): per recipient, seqs are reserved under the inbox
 * row lock, so they are monotonic and commit in order. Recipients are locked in sorted order
 * so two concurrent stores cannot deadlock on each other's inboxes.
 */
import { randomUUID } from 'node:crypto';
import type { CellType, DiffOp } from '../core/cell-types.js';
import type { Diff } from '../core/entities.js';
import { PREVIEW_CHARS } from '../core/limits.js';
import type { Queryable } from '../store/db.js';
import { allocateInboxSeqs, insertInboxDiffs, trimInbox } from '../store/diff-repository.js';
import type { BeaconMatch } from './beacon-matcher.js';
import { toDiff } from './diff-row.js';

export interface ChangedCell {
  readonly tenantId: string;
  readonly nodeId: string;
  readonly project: string;
  readonly cellType: CellType;
  readonly salience: number;
  readonly sceneId: string | null;
  readonly sourceAgent: string;
  readonly content: string;
  /** Set when the change is a source's chunk, told as the document (its diff names the source). */
  readonly sourceId?: string;
  /** When the cell expires (RFC 3339); its diffs carry it so reads and pushes drop its text then. */
  readonly expiresAt?: string | null;
}

export interface WrittenDiff {
  readonly tenantId: string;
  readonly recipientAgent: string;
  readonly diff: Diff;
  /** Diffs this write trimmed from the recipient's inbox, oldest first, to keep it within its size. */
  readonly trimmed: number;
}

export interface DiffWriterOptions {
  /** Diffs an inbox keeps; a write beyond it deletes the oldest (default: unbounded). */
  readonly maxInboxDiffs?: number;
}

export async function writeDiffs(
  tx: Queryable,
  op: DiffOp,
  cell: ChangedCell,
  matches: readonly BeaconMatch[],
  supersedes: string | null = null,
  options: DiffWriterOptions = {},
): Promise<WrittenDiff[]> {
  // One diff per recipient and cell, whatever the number of the recipient's beacons the cell
  // reaches: the most similar one names the beacon. Fan-out follows recipients, not beacons.
  const best = new Map<string, BeaconMatch>();
  for (const match of matches) {
    const held = best.get(match.ownerAgent);
    if (held === undefined || match.similarity > held.similarity) best.set(match.ownerAgent, match);
  }
  const preview = previewOf(cell.content);
  const written: WrittenDiff[] = [];
  for (const recipient of [...best.keys()].sort()) {
    const match = best.get(recipient);
    if (match === undefined) continue;
    const seq = await allocateInboxSeqs(tx, cell.tenantId, recipient, 1);
    const rows = await insertInboxDiffs(tx, cell.tenantId, recipient, [
      {
        diffId: randomUUID(),
        seq,
        op,
        nodeId: cell.nodeId,
        beaconId: match.beaconId,
        similarity: match.similarity,
        cellType: cell.cellType,
        salience: cell.salience,
        sourceAgent: cell.sourceAgent,
        project: cell.project,
        sceneId: cell.sceneId,
        preview,
        supersedes,
        sourceId: cell.sourceId ?? null,
        expiresAt: cell.expiresAt ?? null,
      },
    ]);
    // Under the inbox row lock allocateInboxSeqs holds: seqs are gap-free, so the oldest kept is seq - max + 1.
    const trimmed = options.maxInboxDiffs === undefined ? 0 : await trimInbox(tx, cell.tenantId, recipient, seq - options.maxInboxDiffs);
    for (const row of rows) written.push({ tenantId: cell.tenantId, recipientAgent: recipient, diff: toDiff(row), trimmed });
  }
  return written;
}

/** The first ≤280 characters (code points, so a surrogate pair is never split). */
export function previewOf(content: string): string {
  const chars = Array.from(content);
  return chars.length <= PREVIEW_CHARS ? content : chars.slice(0, PREVIEW_CHARS).join('');
}
