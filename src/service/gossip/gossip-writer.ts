/**
 * The write side of gossip, run inside the transaction that changes a cell: match the beacons
 * the change reaches and write their diffs into the recipients' inboxes (transactional outbox).
 * After commit the facade tells the optional OutboxSignal, so a relay can publish at once.
 */
import type { DiffOp } from '../../core/cell-types.js';
import { BeaconMatcher, beaconAccepts, type BeaconMatch, type BeaconMatcherOptions } from '../../mesh/beacon-matcher.js';
import { writeDiffs, type ChangedCell, type DiffWriterOptions, type WrittenDiff } from '../../mesh/diff-writer.js';
import { beaconsThatReceived } from '../../store/beacon-repository.js';
import type { CellRow } from '../../store/cell-row.js';
import type { Queryable } from '../../store/db.js';
import type { VectorParam } from '../../store/vector-param.js';
import type { BeaconPresence } from './beacon-presence.js';

/** The outbox relay's hook: woken after diffs commit; it publishes from the diffs table. */
export interface OutboxSignal {
  diffsCommitted(diffs: readonly WrittenDiff[]): void;
}

export interface GossipChange extends ChangedCell {
  /** The cell's embedding, bound as a parameter. */
  readonly embedding: VectorParam;
}

/** A cell row as the change gossip carries, with the embedding it was (or is) stored with. */
export function cellChange(row: CellRow, embedding: VectorParam): GossipChange {
  return {
    tenantId: row.tenant_id,
    nodeId: row.node_id,
    project: row.project,
    cellType: row.cell_type,
    salience: row.salience,
    sceneId: row.scene_id,
    sourceAgent: row.source_agent,
    content: row.content,
    embedding,
    expiresAt: row.expires_at,
  };
}

export interface GossipWriterOptions extends BeaconMatcherOptions {
  readonly maxInboxDiffs?: number;
  readonly presence: BeaconPresence;
}

export class GossipWriter {
  private readonly matcher: BeaconMatcher;
  private readonly maxInboxDiffs: number | undefined;
  private readonly presence: BeaconPresence;

  constructor(options: GossipWriterOptions) {
    this.matcher = new BeaconMatcher(options);
    this.maxInboxDiffs = options.maxInboxDiffs;
    this.presence = options.presence;
  }

  /** A beacon is being placed in the tenant; call inside the placing transaction. */
  beaconPlaced(tenantId: string): void {
    this.presence.placed(tenantId);
  }

  private writerOptions(): DiffWriterOptions {
    return this.maxInboxDiffs === undefined ? {} : { maxInboxDiffs: this.maxInboxDiffs };
  }

  async emit(tx: Queryable, op: DiffOp, change: GossipChange, now: Date): Promise<WrittenDiff[]> {
    if (!(await this.presence.mayHaveBeacons(tx, change.tenantId))) return [];
    const matches = await this.matcher.match(tx, change, now);
    if (matches.length === 0) return [];
    return writeDiffs(tx, op, change, matches, null, this.writerOptions());
  }

  /**
   * A source's chunks, told as one document (docs/sources.md): each recipient gets one diff, about
   * the chunk that matched its beacons best, with `preview` (the source's title) instead of that
   * chunk's text, naming the source — not one diff per matching chunk.
   */
  async emitSource(tx: Queryable, op: DiffOp, sourceId: string, chunks: readonly GossipChange[], preview: string, now: Date): Promise<WrittenDiff[]> {
    const first = chunks[0];
    if (first === undefined || !(await this.presence.mayHaveBeacons(tx, first.tenantId))) return [];
    const best = new Map<string, { readonly chunk: GossipChange; readonly match: BeaconMatch }>();
    for (const chunk of chunks) {
      for (const match of await this.matcher.match(tx, chunk, now)) {
        const held = best.get(match.ownerAgent);
        if (held === undefined || match.similarity > held.match.similarity) best.set(match.ownerAgent, { chunk, match });
      }
    }
    const byChunk = new Map<GossipChange, BeaconMatch[]>();
    for (const { chunk, match } of best.values()) byChunk.set(chunk, [...(byChunk.get(chunk) ?? []), match]);
    const written: WrittenDiff[] = [];
    for (const [chunk, matches] of byChunk) written.push(...(await writeDiffs(tx, op, { ...chunk, content: preview, sourceId }, matches, null, this.writerOptions())));
    return written;
  }

  /**
   * A supersession: one `updated` diff (naming both cells) to every beacon the new cell matches,
   * and to every beacon that was told about the old cell, matching or not — an agent that
   * received a Decision hears that it was replaced. The author's own beacons stay quiet unless
   * they asked for their own cells.
   */
  async emitSupersession(tx: Queryable, change: GossipChange, supersededId: string, now: Date): Promise<WrittenDiff[]> {
    if (!(await this.presence.mayHaveBeacons(tx, change.tenantId))) return [];
    const matches = await this.matcher.match(tx, change, now);
    const seen = new Set(matches.map((m) => m.beaconId));
    const told: BeaconMatch[] = (await beaconsThatReceived(tx, change.tenantId, supersededId, change.embedding, now))
      .filter((b) => !seen.has(b.beacon_id) && (b.owner_agent !== change.sourceAgent || b.include_own))
      .map((b) => ({ beaconId: b.beacon_id, ownerAgent: b.owner_agent, similarity: b.similarity }));
    const audience = [...matches, ...told];
    if (audience.length === 0) return [];
    return writeDiffs(tx, 'updated', change, audience, supersededId, this.writerOptions());
  }

  /**
   * A cell's relations changed (docs/relations.md): one `updated` diff of the cell, naming the
   * agent who changed them, to every beacon the cell matches and every beacon told about it before
   * that still takes it (its project, types, scene). It carries the cell's own preview, never a
   * related cell's: a recipient reads the relations through its own key.
   */
  async emitRelationsChanged(tx: Queryable, change: GossipChange, now: Date): Promise<WrittenDiff[]> {
    if (!(await this.presence.mayHaveBeacons(tx, change.tenantId))) return [];
    const matches = await this.matcher.match(tx, change, now);
    const seen = new Set(matches.map((m) => m.beaconId));
    const told: BeaconMatch[] = (await beaconsThatReceived(tx, change.tenantId, change.nodeId, change.embedding, now))
      .filter((b) => !seen.has(b.beacon_id) && beaconAccepts(b, change))
      .map((b) => ({ beaconId: b.beacon_id, ownerAgent: b.owner_agent, similarity: b.similarity }));
    const audience = [...matches, ...told];
    if (audience.length === 0) return [];
    return writeDiffs(tx, 'updated', change, audience, null, this.writerOptions());
  }
}
