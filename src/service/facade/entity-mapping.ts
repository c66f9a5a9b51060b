/** Rows to the wire shapes of src/core/entities.ts. Energy is computed on read. */
import type { Beacon, MemoryNode, Scene } from '../../core/entities.js';
import { computeEnergy, type EnergyTable } from '../../core/energy.js';
import type { BeaconRow } from '../../store/beacon-repository.js';
import type { CellRow } from '../../store/cell-row.js';
import type { SceneRow } from '../../store/scene-repository.js';

export function toMemoryNode(row: CellRow, now: Date, table: EnergyTable): MemoryNode {
  return {
    node_id: row.node_id,
    project: row.project,
    content: row.content,
    cell_type: row.cell_type,
    salience: row.salience,
    scene_id: row.scene_id,
    session_id: row.session_id,
    source_agent: row.source_agent,
    source_ref: row.source_ref,
    metadata: row.metadata,
    layer: row.layer,
    energy: cellEnergy(row, now, table),
    hits: row.hits,
    created_at: row.created_at,
    updated_at: row.updated_at,
    valid_from: row.valid_from,
    valid_until: row.valid_until,
    supersedes: row.supersedes,
    superseded_by: row.superseded_by,
    corroborations: row.corroborations,
    stated_by: [row.source_agent, ...row.corroborators],
    trust: row.trust,
    expires_at: row.expires_at,
  };
}

export function cellEnergy(row: CellRow, now: Date, table: EnergyTable): number {
  return computeEnergy({ cellType: row.cell_type, salience: row.salience, hits: row.hits, reinforcedAt: new Date(row.reinforced_at) }, now, table);
}

export function toScene(row: SceneRow): Scene {
  return {
    scene_id: row.scene_id,
    project: row.project,
    title: row.title,
    created_by: row.created_by,
    created_at: row.created_at,
    cell_count: row.cell_count,
    consolidated: row.consolidated_at !== null,
  };
}

export function toBeacon(row: BeaconRow): Beacon {
  return {
    beacon_id: row.beacon_id,
    owner_agent: row.owner_agent,
    project: row.project,
    text: row.text,
    threshold: row.threshold,
    cell_types: row.cell_types,
    scene_id: row.scene_id,
    include_own: row.include_own,
    expires_at: row.expires_at,
    created_at: row.created_at,
  };
}
