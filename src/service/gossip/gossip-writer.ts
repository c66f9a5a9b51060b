/**
 * The write side of gossip, run inside the transaction that changes a cell: match the beacons
 * the change reaches and write their diffs into the recipients' inboxes (transactional outbox).
 * After commit the facade tells the optional OutboxSignal, so a relay can publish at once.
 */
import type { DiffOp } from '../../core/cell-types.js';
import { BeaconMatcher, beaconAccepts, type BeaconMatch, type BeaconMatcherOptions, type SourceChunkCell } from '../../mesh/beacon-matcher.js';
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

/** A source's chunk cells as one change: what they share, and the source's title (the preview its diffs carry). */
export interface SourceChange extends SourceChunkCell, Omit<ChangedCell, 'nodeId' | 'content' | 'sourceId'> {
  readonly title: string;
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
   * the chunk that matched its beacons best, with the source's title as its preview instead of that
   * chunk's text, naming the source — not one diff per matching chunk. The chunks are matched in one
   * statement where they are stored (run after they were inserted, in the same transaction).
   */
  async emitSource(tx: Queryable, op: DiffOp, source: SourceChange, now: Date): Promise<WrittenDiff[]> {
    if (!(await this.presence.mayHaveBeacons(tx, source.tenantId))) return [];
    const best = new Map<string, { readonly nodeId: string; readonly match: BeaconMatch }>();
    for (const hit of await this.matcher.matchSourceChunks(tx, source, now)) {
      const held = best.get(hit.match.ownerAgent);
      if (held === undefined || hit.match.similarity > held.match.similarity) best.set(hit.match.ownerAgent, hit);
    }
    const byChunk = new Map<string, BeaconMatch[]>();
    for (const { nodeId, match } of best.values()) byChunk.set(nodeId, [...(byChunk.get(nodeId) ?? []), match]);
    const { title, ...cell } = source;
    const written: WrittenDiff[] = [];
    for (const [nodeId, matches] of byChunk) written.push(...(await writeDiffs(tx, op, { ...cell, nodeId, content: title }, matches, null, this.writerOptions())));
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
