/**
 * What each tool returns in `structuredContent`. The wire shapes come from core/output-schemas.ts
 * (shared with the OpenAPI document); the projections copy exactly those fields, so nothing else
 * the facade returns (hydrated nodes, say) ever reaches an agent.
 */
import { z } from 'zod';
import type { Beacon, Diff, Scene, SceneWithCells } from '../../../core/entities.js';
import type { beaconSchema, diffSchema, sceneSchema, sceneWithCellIdsSchema } from '../../../core/output-schemas.js';
import { uuidSchema } from '../../../core/schemas.js';

export const storedNodeOutput = z.strictObject({
  node_id: uuidSchema.describe('Id of the stored cell, or of the cell this store reinforced'),
  reinforced: z.boolean().describe('true when the memory restated a current cell and reinforced it instead of adding one'),
});

export const beaconIdOutput = z.strictObject({ beacon_id: uuidSchema.describe('Id of the placed beacon') });

/** The structuredContent of an `isError:true` result for arguments that failed their schema. */
export const toolErrorOutput = z.strictObject({
  error: z.strictObject({
    code: z.literal('INVALID_ARGUMENT'),
    message: z.string(),
    issues: z.array(z.strictObject({ path: z.string(), message: z.string() })),
  }),
});

export function projectBeacon(beacon: Beacon): z.output<typeof beaconSchema> {
  return {
    beacon_id: beacon.beacon_id,
    owner_agent: beacon.owner_agent,
    project: beacon.project,
    text: beacon.text,
    threshold: beacon.threshold,
    cell_types: beacon.cell_types === null ? null : [...beacon.cell_types],
    scene_id: beacon.scene_id,
    include_own: beacon.include_own,
    expires_at: beacon.expires_at,
    created_at: beacon.created_at,
  };
}

export function projectDiff(diff: Diff): z.output<typeof diffSchema> {
  return {
    diff_id: diff.diff_id,
    seq: diff.seq,
    op: diff.op,
    node_id: diff.node_id,
    beacon_id: diff.beacon_id,
    similarity: diff.similarity,
    cell_type: diff.cell_type,
    salience: diff.salience,
    source_agent: diff.source_agent,
    project: diff.project,
    scene_id: diff.scene_id,
    preview: diff.preview,
    created_at: diff.created_at,
    supersedes: diff.supersedes,
    source_id: diff.source_id,
  };
}

export function projectScene(scene: Scene): z.output<typeof sceneSchema> {
  return {
    scene_id: scene.scene_id,
    project: scene.project,
    title: scene.title,
    created_by: scene.created_by,
    created_at: scene.created_at,
    cell_count: scene.cell_count,
    consolidated: scene.consolidated,
  };
}

export function projectSceneWithCells(scene: SceneWithCells): z.output<typeof sceneWithCellIdsSchema> {
  return { ...projectScene(scene), cell_ids: [...scene.cell_ids] };
}
