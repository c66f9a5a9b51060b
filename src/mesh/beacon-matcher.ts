/**
 * Finds the beacons a cell change reaches (SPEC §1): similarity ≥ threshold − reach with
 * reach = R · salience · w(type), filters applied, the author's own beacons skipped unless they
 * ask for them. Candidates come from the HNSW index over beacon embeddings in growing batches,
 * nearest first, and the scan stops once similarity falls below the lowest threshold of the
 * tenant's beacons minus this cell's reach — so the cost follows the number of beacons near the
 * cell, not the number of beacons. The bound is the tenant's lowest beacon threshold, read
 * from an index; a tenant without beacons skips the scan altogether. The batch stops growing at
 * `maxBatch`: a change reaches at most that many of its nearest beacons, so one store's scan and
 * fan-out stay bounded however many beacons a tenant places on one topic.
 */
import type { CellType } from '../core/cell-types.js';
import { computeReach, type EnergyTable } from '../core/energy.js';
import { ALL_PROJECTS } from '../core/principal.js';
import { lowestBeaconThresholdWithScan, nearestBeacons, setBeaconScan, type BeaconCandidate } from '../store/beacon-repository.js';
import type { Queryable } from '../store/db.js';

export interface MatchableCell {
  readonly tenantId: string;
  readonly project: string;
  readonly cellType: CellType;
  readonly salience: number;
  readonly sceneId: string | null;
  readonly sourceAgent: string;
  /** pgvector text form of the cell's embedding. */
  readonly embedding: string;
}

export interface BeaconMatch {
  readonly beaconId: string;
  readonly ownerAgent: string;
  readonly similarity: number;
}

export interface BeaconMatcherOptions {
  readonly reachFactor: number;
  readonly energyTable: EnergyTable;
  /** First batch of nearest beacons fetched (default 16); grows ×4 while the batch is still within reach. */
  readonly initialBatch?: number;
  /** The largest batch (default 4,096): past it the scan stops with the nearest beacons found. */
  readonly maxBatch?: number;
}

const DEFAULT_MAX_BEACON_BATCH = 4_096;

const MAX_EF_SEARCH = 1000;
const MIN_EF_SEARCH = 40;

export class BeaconMatcher {
  private readonly options: BeaconMatcherOptions;

  constructor(options: BeaconMatcherOptions) {
    this.options = options;
  }

  /** Must run inside a transaction: it sets transaction-local HNSW scan parameters. */
  async match(tx: Queryable, cell: MatchableCell, now: Date): Promise<BeaconMatch[]> {
    const maxBatch = this.options.maxBatch ?? DEFAULT_MAX_BEACON_BATCH;
    let limit = Math.min(maxBatch, this.options.initialBatch ?? 16);
    // The tenant's lowest threshold and the first batch's scan settings in one round trip.
    const lowest = await lowestBeaconThresholdWithScan(tx, cell.tenantId, efSearchFor(limit));
    if (lowest === null) return [];
    const reach = computeReach(cell.cellType, cell.salience, this.options.reachFactor, this.options.energyTable);
    const floor = lowest - reach;
    let candidates: BeaconCandidate[];
    for (let first = true; ; first = false) {
      if (!first) await setBeaconScan(tx, efSearchFor(limit));
      candidates = await nearestBeacons(tx, cell.tenantId, cell.embedding, now, limit);
      const farthest = candidates.reduce((min, c) => Math.min(min, c.similarity), Number.POSITIVE_INFINITY);
      if (candidates.length < limit || farthest < floor || limit >= maxBatch) break;
      limit = Math.min(maxBatch, limit * 4);
    }
    return candidates
      .filter((b) => b.similarity >= b.threshold - reach && beaconAccepts(b, cell))
      .sort((a, b) => b.similarity - a.similarity)
      .map((b) => ({ beaconId: b.beacon_id, ownerAgent: b.owner_agent, similarity: b.similarity }));
  }
}

function efSearchFor(limit: number): string {
  return String(Math.min(MAX_EF_SEARCH, Math.max(MIN_EF_SEARCH, limit)));
}

function beaconAccepts(beacon: BeaconCandidate, cell: MatchableCell): boolean {
  if (beacon.owner_agent === cell.sourceAgent && !beacon.include_own) return false;
  if (beacon.project !== null ? beacon.project !== cell.project : !watchesProject(beacon.owner_projects, cell.project)) return false;
  if (beacon.cell_types !== null && !beacon.cell_types.includes(cell.cellType)) return false;
  if (beacon.scene_id !== null && beacon.scene_id !== cell.sceneId) return false;
  return true;
}

function watchesProject(ownerProjects: readonly string[], project: string): boolean {
  return ownerProjects.includes(ALL_PROJECTS) || ownerProjects.includes(project);
}
