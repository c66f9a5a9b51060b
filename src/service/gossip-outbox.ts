/**
 * The write side of gossip, run inside the transaction that changes a cell: match the beacons
 * the change reaches and write their diffs into the recipients' inboxes (transactional outbox).
 * After commit the facade tells the optional OutboxSignal, so a relay can publish at once.
 */
import type { DiffOp } from '../core/cell-types.js';
import { BeaconMatcher, type BeaconMatcherOptions } from '../mesh/beacon-matcher.js';
import { writeDiffs, type ChangedCell, type WrittenDiff } from '../mesh/diff-writer.js';
import type { Queryable } from '../store/db.js';

/** Hook for the outbox relay (issue 4 item 4): woken after diffs commit; it publishes from the diffs table. */
export interface OutboxSignal {
  diffsCommitted(diffs: readonly WrittenDiff[]): void;
}

export interface GossipChange extends ChangedCell {
  /** pgvector text of the cell's embedding. */
  readonly embedding: string;
}

export class GossipOutbox {
  private readonly matcher: BeaconMatcher;

  constructor(options: BeaconMatcherOptions) {
    this.matcher = new BeaconMatcher(options);
  }

  async emit(tx: Queryable, op: DiffOp, change: GossipChange, now: Date): Promise<WrittenDiff[]> {
    const matches = await this.matcher.match(tx, change, now);
    if (matches.length === 0) return [];
    return writeDiffs(tx, op, change, matches);
  }
}
