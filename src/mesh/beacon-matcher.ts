/**
 * Finds the beacons a cell change reaches (docs/memory-model.md): similarity ≥ threshold − reach with
 * reach = R · salience · w(type), filters applied, the author's own beacons skipped unless they
 * ask for them. Candidates come from one iterative scan of the HNSW index over beacon embeddings,
 * nearest first, in chunks growing ×4, and the scan stops after the first chunk that reaches below
 * the lowest threshold of the tenant's beacons minus this cell's reach — so the cost follows the
 * number of beacons near the cell, not the number of beacons. The whole match is one statement
 * (hyphae_beacon_candidates, migration 0007); a tenant without beacons returns at once. The scan
 * stops at `maxBatch` rows: a change reaches at most that many of its nearest beacons, so one
 * store's scan and fan-out stay bounded however many beacons a tenant places on one topic.
 */
import type { CellType } from '../core/cell-types.js';
import { computeReach, type EnergyTable } from '../core/energy.js';
import { ALL_PROJECTS } from '../core/principal.js';
import { beaconCandidates, sourceChunkBeaconCandidates, type BeaconCandidate } from '../store/beacon-repository.js';
import type { Queryable } from '../store/db.js';
import type { VectorParam } from '../store/vector-param.js';

export interface MatchableCell {
  readonly tenantId: string;
  readonly project: string;
  readonly cellType: CellType;
  readonly salience: number;
  readonly sceneId: string | null;
  readonly sourceAgent: string;
  /** The cell's embedding, bound as a parameter. */
  readonly embedding: VectorParam;
}

export interface BeaconMatch {
  readonly beaconId: string;
  readonly ownerAgent: string;
  readonly similarity: number;
}

export interface BeaconMatcherOptions {
  readonly reachFactor: number;
  readonly energyTable: EnergyTable;
  /** First chunk of nearest beacons read (default 16); the next chunks grow ×4 while every beacon read is within reach. */
  readonly initialBatch?: number;
  /** The most beacons read (default 4,096): there the scan stops with the nearest beacons found. */
  readonly maxBatch?: number;
}

const DEFAULT_MAX_BEACON_BATCH = 4_096;

export class BeaconMatcher {
  private readonly options: BeaconMatcherOptions;

  constructor(options: BeaconMatcherOptions) {
    this.options = options;
  }

  /** Runs as one statement on the caller's connection (inside the store's transaction). */
  async match(tx: Queryable, cell: MatchableCell, now: Date): Promise<BeaconMatch[]> {
    const { reach, first, maxBatch } = this.scan(cell);
    const candidates: BeaconCandidate[] = await beaconCandidates(tx, cell.tenantId, cell.embedding, now, reach, first, maxBatch);
    return candidates
      .filter((b) => b.similarity >= b.threshold - reach && beaconAccepts(b, cell))
      .sort((a, b) => b.similarity - a.similarity)
      .map((b) => ({ beaconId: b.beacon_id, ownerAgent: b.owner_agent, similarity: b.similarity }));
  }

  /**
   * What each chunk cell of a source reaches, every chunk matched as `match` matches a cell, in one
   * statement for the whole source (no round trip per chunk); `chunk` stands for every chunk of it:
   * they share their type, salience, author, project and scene. In chunk order.
   */
  async matchSourceChunks(tx: Queryable, chunk: SourceChunkCell, now: Date): Promise<{ readonly nodeId: string; readonly match: BeaconMatch }[]> {
    const { reach, first, maxBatch } = this.scan(chunk);
    const candidates = await sourceChunkBeaconCandidates(tx, chunk, now, reach, first, maxBatch);
    return candidates
      .filter((b) => b.similarity >= b.threshold - reach && beaconAccepts(b, chunk))
      .map((b) => ({ nodeId: b.node_id, match: { beaconId: b.beacon_id, ownerAgent: b.owner_agent, similarity: b.similarity } }));
  }

  private scan(cell: Pick<MatchableCell, 'cellType' | 'salience'>): { readonly reach: number; readonly first: number; readonly maxBatch: number } {
    const maxBatch = this.options.maxBatch ?? DEFAULT_MAX_BEACON_BATCH;
    const first = Math.min(maxBatch, this.options.initialBatch ?? 16);
    return { reach: computeReach(cell.cellType, cell.salience, this.options.reachFactor, this.options.energyTable), first, maxBatch };
  }
}

/** Every chunk cell of one source, as matching reads them (their embeddings are read where they are stored). */
export interface SourceChunkCell extends Omit<MatchableCell, 'embedding'> {
  readonly sourceId: string;
}

/** Whether the beacon takes the cell: its author's own only when asked for, its project, cell types and scene. */
export function beaconAccepts(beacon: BeaconCandidate, cell: Omit<MatchableCell, 'embedding'>): boolean {
  if (beacon.owner_agent === cell.sourceAgent && !beacon.include_own) return false;
  if (beacon.project !== null ? beacon.project !== cell.project : !watchesProject(beacon.owner_projects, cell.project)) return false;
  if (beacon.cell_types !== null && !beacon.cell_types.includes(cell.cellType)) return false;
  if (beacon.scene_id !== null && beacon.scene_id !== cell.sceneId) return false;
  return true;
}

function watchesProject(ownerProjects: readonly string[], project: string): boolean {
  return ownerProjects.includes(ALL_PROJECTS) || ownerProjects.includes(project);
}
