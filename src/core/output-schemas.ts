/**
 * Output schemas of the wire shapes (entities.ts derives its types from them). They generate the
 * response schemas of the OpenAPI document and the MCP `outputSchema`s (z.toJSONSchema), and tests
 * check real responses against them. Objects are strict so a response that grows a field (say
 * `tenant_id`) fails.
 */
import { z } from 'zod';
import { DIFF_OPS, ROLES } from './cell-types.js';
import { cellTypeSchema, layerSchema, uuidSchema } from './schemas.js';
import { relationSchema } from './relation-schemas.js';
import { erasureReceiptSchema } from './erasure-schemas.js';

const timestampSchema = z.iso.datetime({ offset: true }).describe('RFC 3339 timestamp');
const nextCursorSchema = z.string().nullable().describe('Cursor of the next page; null on the last page');

export const sourceRefOutputSchema = z.strictObject({ kind: z.string(), locator: z.string() });

export const memoryNodeSchema = z
  .strictObject({
    node_id: uuidSchema,
    project: z.string(),
    content: z.string(),
    cell_type: cellTypeSchema,
    salience: z.number().min(0).max(1),
    scene_id: uuidSchema.nullable(),
    session_id: uuidSchema.nullable(),
    source_agent: z.string(),
    source_ref: sourceRefOutputSchema.nullable(),
    metadata: z.record(z.string(), z.unknown()),
    layer: layerSchema,
    energy: z.number().min(0),
    hits: z.int().min(0),
    created_at: timestampSchema,
    updated_at: timestampSchema,
    valid_from: timestampSchema.describe('When this version became current'),
    valid_until: timestampSchema.nullable().describe('When a newer version superseded it; null while current'),
    supersedes: uuidSchema.nullable().describe('The version this one replaced'),
    superseded_by: uuidSchema.nullable().describe('The version that replaced this one'),
    corroborations: z.int().min(0).describe('Stores that restated this cell and reinforced it instead of writing their own'),
    stated_by: z.array(z.string()).min(1).describe('The agents who stated it: its author first, then each agent that restated it'),
    trust: z.number().min(0).max(1).describe("Its author's trust, raised by each further agent that restated it"),
    expires_at: timestampSchema.nullable().describe('When it is forgotten (expires_at, ttl_seconds or its type\'s default retention); null: kept'),
  })
  .describe('A stored memory cell');

export const storedNodeSchema = memoryNodeSchema
  .extend({ reinforced: z.boolean().describe('true when the store restated a current cell and reinforced it instead of writing a new one') })
  .describe('The stored cell, or the cell the store reinforced');

export const sceneSchema = z
  .strictObject({
    scene_id: uuidSchema,
    project: z.string(),
    title: z.string().nullable(),
    created_by: z.string(),
    created_at: timestampSchema,
    cell_count: z.int().min(0),
    consolidated: z.boolean(),
  })
  .describe('A scene: a group of cells (a task, an incident, an episode)');

export const sceneWithCellIdsSchema = sceneSchema.extend({ cell_ids: z.array(uuidSchema) });
export const sceneWithCellsSchema = sceneWithCellIdsSchema.extend({ cells: z.array(memoryNodeSchema) });

export const beaconSchema = z
  .strictObject({
    beacon_id: uuidSchema,
    owner_agent: z.string(),
    project: z.string().nullable(),
    text: z.string(),
    threshold: z.number().min(0).max(1),
    cell_types: z.array(cellTypeSchema).nullable(),
    scene_id: uuidSchema.nullable(),
    include_own: z.boolean(),
    expires_at: timestampSchema.nullable(),
    created_at: timestampSchema,
  })
  .describe('A standing interest');

export const diffSchema = z
  .strictObject({
    diff_id: uuidSchema,
    seq: z.int().min(0),
    op: z.enum(DIFF_OPS),
    node_id: uuidSchema,
    beacon_id: uuidSchema,
    similarity: z.number(),
    cell_type: cellTypeSchema,
    salience: z.number().min(0).max(1),
    source_agent: z.string(),
    project: z.string(),
    scene_id: uuidSchema.nullable(),
    preview: z.string(),
    created_at: timestampSchema,
    supersedes: uuidSchema.nullable().describe('On an `updated` diff: the node that node_id supersedes'),
    source_id: z.string().nullable().describe('When the change is a document (a source, docs/sources.md): its source_id, node_id its best-matching chunk and preview its title; null for a cell'),
    expires_at: timestampSchema
      .nullable()
      .optional()
      .describe('When the cell it tells of expires; from then the diff shows no preview and is no longer pushed (docs/expiry.md); null: kept'),
  })
  .describe('A change gossiped to a beacon owner');

export const sessionOpenedSchema = z.strictObject({ session_id: uuidSchema, scene_id: uuidSchema, opened_at: timestampSchema });
export const sessionClosedSchema = z.strictObject({ session_id: uuidSchema, closed_at: timestampSchema });

export const diffsSinceSchema = z.strictObject({
  diffs: z.array(diffSchema),
  next_since: timestampSchema.describe('Pass as `since` to continue'),
});
export const drainedInboxSchema = z.strictObject({ diffs: z.array(diffSchema), has_more: z.boolean() });

export const apiKeyInfoSchema = z
  .strictObject({
    key_id: uuidSchema,
    tenant: z.string(),
    agent: z.string(),
    roles: z.array(z.enum(ROLES)),
    projects: z.array(z.string()),
    default_project: z.string(),
    trust: z.number().min(0).max(1),
    key_prefix: z.string().describe('First characters of the key, to recognise it; never the key'),
    created_at: timestampSchema,
    revoked_at: timestampSchema.nullable(),
  })
  .describe('An API key, without its secret');
export const createdApiKeySchema = apiKeyInfoSchema
  .extend({ key: z.string().describe('The clear key: shown exactly once, never stored') })
  .describe('A new API key with its clear secret');

const distanceSchema = z.number().describe("Cosine distance between the cell and the query (0 = same direction), whichever mode ranked it");
const scoreSchema = z
  .number()
  .describe('What ranked the hit, higher first: vector 1 − distance; lexical the share of the query’s weighted terms the cell holds (0–1); hybrid 1 − distance plus what matching identifiers and words add');

/** A hit that is a chunk of a source (docs/sources.md): the source and where in its text (Unicode code points) the chunk lies. */
export const chunkOfSourceSchema = z
  .strictObject({ source_id: z.string(), chunk_index: z.int().min(0), char_start: z.int().min(0), char_end: z.int().min(0) })
  .describe('Present when the cell is a chunk of a source: read the source around it with GET /v1/sources/{source_id}?offset=char_start');
const relatedChunksSchema = z.array(uuidSchema).describe('num_related_chunks: the adjacent chunks of the same source, in source order');
const graphContextSchema = z.array(relationSchema).describe('graph_context: the hit’s one-hop relations, declared and implicit, at most 10');
const requestIdSchema = uuidSchema.describe('Names this answer: send it with POST /v1/feedback (or hydradb_feedback) to judge it (docs/feedback.md)');
/** MCP `recall`/`query` results: ids, distances and scores only, never content. */
export const recallIdsResultSchema = z.strictObject({
  request_id: requestIdSchema,
  results: z.array(z.strictObject({ node_id: uuidSchema, distance: distanceSchema, score: scoreSchema, source: chunkOfSourceSchema.optional(), related_chunks: relatedChunksSchema.optional(), relations: graphContextSchema.optional() })),
});
/** REST `recall`/`query` results: each hit hydrated with its full node. */
export const recallNodesResultSchema = z.strictObject({
  request_id: requestIdSchema,
  results: z.array(z.strictObject({ node: memoryNodeSchema, distance: distanceSchema, score: scoreSchema, source: chunkOfSourceSchema.optional(), related_chunks: relatedChunksSchema.optional(), relations: graphContextSchema.optional() })),
});

export const cellsPageSchema = z.strictObject({ cells: z.array(memoryNodeSchema), next_cursor: nextCursorSchema });
export const forgottenCellsSchema = z
  .strictObject({ deleted: z.int().min(0), has_more: z.boolean() })
  .describe('How many cells this call forgot; has_more = more match, call again');
export const purgedProjectSchema = z
  .strictObject({
    project: z.string(),
    cells: z.int().min(0),
    scenes: z.int().min(0),
    sessions: z.int().min(0),
    beacons: z.int().min(0).describe('Beacons that watched only this project'),
    diffs: z.int().min(0).describe('Diffs about the project removed from inboxes'),
    receipt: erasureReceiptSchema.describe('The erasure’s receipt, every kind of copy counted (docs/forgetting.md)'),
  })
  .describe('What the purge erased');
export const corroborationSchema = z
  .strictObject({
    corroboration_id: uuidSchema,
    node_id: uuidSchema.describe('The cell the store reinforced'),
    agent: z.string().describe('The agent whose store restated it'),
    content: z.string().describe('What that store said, as it said it'),
    salience: z.number().min(0).max(1),
    scene_id: uuidSchema.nullable(),
    source_ref: sourceRefOutputSchema.nullable(),
    metadata: z.record(z.string(), z.unknown()),
    similarity: z.number().describe('Cosine similarity of the restatement to the cell (1 for an identical text)'),
    created_at: timestampSchema,
  })
  .describe('A store that restated a cell and reinforced it instead of writing its own: what it carried, kept with the cell');
export const cellHistorySchema = z
  .strictObject({
    cells: z.array(memoryNodeSchema),
    corroborations: z.array(corroborationSchema).describe("The restatements that reinforced the chain's cells, oldest first"),
  })
  .describe('Every version of a supersession chain, oldest first (the last one is current unless it was deleted), and the restatements that reinforced them');
export const beaconsPageSchema = z.strictObject({ beacons: z.array(beaconSchema), next_cursor: nextCursorSchema });
export const scenesPageSchema = z.strictObject({ scenes: z.array(sceneSchema), next_cursor: nextCursorSchema });
export const apiKeyListSchema = z.strictObject({ keys: z.array(apiKeyInfoSchema) });
