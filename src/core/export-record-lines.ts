/**
 * The schemas of the export format's record lines (export-format.ts, docs/export-format.md) but
 * sources': tenants, keys, scenes, sessions, cells, corroborations, relations, learnt evidence,
 * beacons, inboxes and diffs.
 */
import { z } from 'zod';
import { DIFF_OPS, ROLES } from './cell-types.js';
import { agentSchema, contentSchema, embeddingSchema, expiresAtSchema, jsonObject, seqSchema, tenantSchema, text, timestamp } from './export-format-fields.js';
import { declaredRelationTypeSchema } from './relation-schemas.js';
import { sourceIdSchema } from './source-schemas.js';
import { cellTypeSchema, layerSchema, projectSchema, uuidSchema } from './schemas.js';

export const exportTenantSchema = z.strictObject({ type: z.literal('tenant'), tenant: tenantSchema, created_at: timestamp });

export const exportKeySchema = z.strictObject({
  type: z.literal('key'),
  tenant: tenantSchema,
  key_id: uuidSchema,
  agent: agentSchema,
  roles: z.array(z.enum(ROLES)).min(1),
  projects: z.array(z.union([projectSchema, z.literal('*')])).min(1),
  default_project: projectSchema,
  trust: z.number().min(0).max(1),
  /** Hex SHA-256 of the clear key, which is never exported. */
  key_hash: z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex digits'),
  key_prefix: text(1, 32),
  created_at: timestamp,
  revoked_at: timestamp.nullable(),
});

export const exportSceneSchema = z.strictObject({
  type: z.literal('scene'),
  tenant: tenantSchema,
  scene_id: uuidSchema,
  project: projectSchema,
  title: text(0, 200).nullable(),
  created_by: agentSchema,
  created_at: timestamp,
  consolidated_at: timestamp.nullable(),
  consolidated_node_id: uuidSchema.nullable(),
});

export const exportSessionSchema = z.strictObject({
  type: z.literal('session'),
  tenant: tenantSchema,
  session_id: uuidSchema,
  agent: agentSchema,
  project: projectSchema,
  scene_id: uuidSchema,
  opened_at: timestamp,
  closed_at: timestamp.nullable(),
});

const reinforcementKeySchema = z.strictObject({ agent: agentSchema, idempotency_key: text(1, 200), created_at: timestamp });

export const exportCellSchema = z.strictObject({
  type: z.literal('cell'),
  tenant: tenantSchema,
  node_id: uuidSchema,
  project: projectSchema,
  layer: layerSchema,
  cell_type: cellTypeSchema,
  content: contentSchema,
  salience: z.number().min(0).max(1),
  scene_id: uuidSchema.nullable(),
  session_id: uuidSchema.nullable(),
  source_agent: agentSchema,
  source_ref: z.strictObject({ kind: text(1, 64), locator: text(1, 2048) }).nullable(),
  metadata: jsonObject,
  idempotency_key: text(1, 200).nullable(),
  origin_node_id: uuidSchema.nullable(),
  promoted_node_id: uuidSchema.nullable(),
  hits: z.int().min(0),
  created_at: timestamp,
  updated_at: timestamp,
  reinforced_at: timestamp,
  valid_from: timestamp,
  valid_until: timestamp.nullable(),
  supersedes: uuidSchema.nullable(),
  superseded_by: uuidSchema.nullable(),
  corroborations: z.int().min(0),
  corroborators: z.array(agentSchema),
  trust: z.number().min(0).max(1),
  /** Idempotency keys of stores that reinforced this cell: their replays return it. */
  reinforcement_keys: z.array(reinforcementKeySchema),
  /** A source's chunk: its source (same tenant and project) and where in its text it lies; null otherwise; absent in version 1 (read as null). */
  source_id: sourceIdSchema.nullable().optional(),
  chunk_index: z.int().min(0).nullable().optional(),
  char_start: z.int().min(0).nullable().optional(),
  char_end: z.int().min(0).nullable().optional(),
  expires_at: expiresAtSchema,
  embedding: embeddingSchema.optional(),
}).superRefine((cell, context) => {
  const link = [cell.source_id, cell.chunk_index, cell.char_start, cell.char_end].map((v) => v === undefined || v === null);
  if (link.some((absent) => absent !== link[0])) context.addIssue({ code: 'custom', path: ['source_id'], message: 'source_id, chunk_index, char_start and char_end are all set or all null' });
  else if (!link[0] && (cell.char_start ?? 0) > (cell.char_end ?? 0)) context.addIssue({ code: 'custom', path: ['char_start'], message: 'must not exceed char_end' });
});

/**
 * A reinforcing store's own statement, kept with the cell it corroborated (its text and what the
 * store carried): exported after the cells, so its cell comes first; an import refuses one whose
 * cell is neither in the file nor the same tenant's in the target.
 */
export const exportCorroborationSchema = z.strictObject({
  type: z.literal('corroboration'),
  tenant: tenantSchema,
  corroboration_id: uuidSchema,
  node_id: uuidSchema,
  agent: agentSchema,
  content: contentSchema,
  salience: z.number().min(0).max(1),
  scene_id: uuidSchema.nullable(),
  session_id: uuidSchema.nullable(),
  source_ref: z.strictObject({ kind: text(1, 64), locator: text(1, 2048) }).nullable(),
  metadata: jsonObject,
  similarity: z.number().min(-1).max(1),
  created_at: timestamp,
});

/**
 * A relation a cell declares to another cell of its tenant (docs/relations.md), after the cells
 * (version 3): an import refuses one whose cells are not both the tenant's once the file's cells
 * are written.
 */
export const exportRelationSchema = z.strictObject({
  type: z.literal('relation'),
  tenant: tenantSchema,
  from_node_id: uuidSchema,
  to_node_id: uuidSchema,
  relation_type: declaredRelationTypeSchema,
  created_by: agentSchema,
  created_at: timestamp,
  /** When it stops holding; null while it holds. */
  valid_until: timestamp.nullable().default(null),
});

/**
 * What recall learnt for a cell from a judged query (docs/feedback-learning.md; version 4), after
 * the relations: the query's embedding (by the header's embedder, when the file carries vectors)
 * and its text (null when the request log kept only a hash). An import adds it when its cell is the
 * tenant's once the file's cells are written; without the file's vectors it embeds the text again,
 * and drops evidence that has no text.
 */
export const exportEvidenceSchema = z.strictObject({
  type: z.literal('evidence'),
  tenant: tenantSchema,
  evidence_id: uuidSchema,
  node_id: uuidSchema,
  weight: z.number().min(0).max(1),
  trust: z.number().min(0).max(1),
  agent: agentSchema,
  label: z.enum(['agent', 'human']),
  request_id: text(1, 200),
  query_text: text(1, 32 * 1024).nullable(),
  created_at: timestamp,
  embedding: embeddingSchema.optional(),
});

export const exportBeaconSchema = z.strictObject({
  type: z.literal('beacon'),
  tenant: tenantSchema,
  beacon_id: uuidSchema,
  owner_agent: agentSchema,
  owner_projects: z.array(z.union([projectSchema, z.literal('*')])).min(1),
  project: projectSchema.nullable(),
  text: text(1, 4096),
  threshold: z.number().min(0).max(1),
  cell_types: z.array(cellTypeSchema).min(1).nullable(),
  scene_id: uuidSchema.nullable(),
  include_own: z.boolean(),
  expires_at: timestamp.nullable(),
  created_at: timestamp,
  embedding: embeddingSchema.optional(),
});

export const exportInboxSchema = z.strictObject({
  type: z.literal('inbox'),
  tenant: tenantSchema,
  agent: agentSchema,
  last_seq: seqSchema,
  cursor_seq: seqSchema,
  /** How far the agent's channel sessions dealt with the inbox; null when it never ran one. */
  channel_settled_seq: seqSchema.nullable(),
});

/** A diff still waiting in an inbox (its seq above the inbox's drain cursor). */
export const exportDiffSchema = z.strictObject({
  type: z.literal('diff'),
  tenant: tenantSchema,
  recipient_agent: agentSchema,
  diff_id: uuidSchema,
  seq: seqSchema,
  op: z.enum(DIFF_OPS),
  node_id: uuidSchema,
  beacon_id: uuidSchema,
  similarity: z.number(),
  cell_type: cellTypeSchema,
  salience: z.number().min(0).max(1),
  source_agent: agentSchema,
  project: projectSchema,
  scene_id: uuidSchema.nullable(),
  preview: text(0),
  supersedes: uuidSchema.nullable(),
  created_at: timestamp,
  /** A diff about a source (told as a document): its source_id; null otherwise; absent in files written before it (read as null). */
  source_id: sourceIdSchema.nullable().optional(),
  /** Its cell's expiry, so a restored inbox shows no preview of a cell once it expired. */
  expires_at: expiresAtSchema,
});
