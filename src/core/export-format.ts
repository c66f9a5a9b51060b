/**
 * The export format (docs/export-format.md): JSON Lines, one object per line, each with a `type`.
 * A header line first, then tenants, keys, scenes, sessions, sources, cells, corroborations,
 * relations, learnt evidence, beacons, inboxes and diffs in that order, then an end line that counts them. These schemas are the
 * format's one definition: the importer validates every line with them and the exporter writes
 * nothing they would refuse. Every object is strict; what a reader of an older version could not
 * take raises the version.
 */
import { z } from 'zod';
import { DIFF_OPS, ROLES } from './cell-types.js';
import { agentSchema, contentSchema, embeddingSchema, expiresAtSchema, jsonObject, seqSchema, tenantSchema, text, timestamp } from './export-format-fields.js';
import { declaredRelationTypeSchema } from './relation-schemas.js';
import { SOURCE_KINDS, sourceIdSchema } from './source-schemas.js';
import { cellTypeSchema, layerSchema, projectSchema, uuidSchema } from './schemas.js';

export const EXPORT_FORMAT_NAME = 'hyphae-export';
/** The version this code writes; it reads this one and every older one. */
export const EXPORT_FORMAT_VERSION = 4;

/** The line types in the order a file holds them (a file may skip any but header and end). */
export const EXPORT_LINE_TYPES = ['header', 'tenant', 'key', 'scene', 'session', 'source', 'cell', 'corroboration', 'relation', 'evidence', 'beacon', 'inbox', 'diff', 'end'] as const;
export type ExportLineType = (typeof EXPORT_LINE_TYPES)[number];
/** The record types an end line counts (everything between header and end). */
export type ExportRecordType = Exclude<ExportLineType, 'header' | 'end'>;
export const EXPORT_RECORD_TYPES = EXPORT_LINE_TYPES.filter((t): t is ExportRecordType => t !== 'header' && t !== 'end');

export const exportHeaderSchema = z.strictObject({
  type: z.literal('header'),
  format: z.literal(EXPORT_FORMAT_NAME),
  version: z.int().min(1),
  hyphae_version: z.string().min(1).max(64),
  exported_at: timestamp,
  scope: z.strictObject({ tenant: tenantSchema.nullable(), project: projectSchema.nullable() }),
  /** The embedder the source's vectors came from: an importer uses the file's vectors only when its own is the same. */
  embedder: z.strictObject({ model_id: z.string().min(1).max(200), dimension: z.int().min(1).max(2000) }),
  /** Whether cell and beacon lines carry `embedding`. */
  vectors: z.boolean(),
});

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

/** A source's text is written in parts of at most this many UTF-16 code units: even escaped six-fold, a part's line stays far below the import's line bound. */
export const SOURCE_TEXT_PART_CHARS = 1024 * 1024;
/** The most `source_text` lines one source line may announce: a source of the largest size allowed (32 MiB) needs at most 31. */
export const MAX_SOURCE_CONTINUATION_LINES = 63;

/**
 * The served version of a source (docs/sources.md): its whole text and fields; its chunks are the
 * cell lines that name it. Pending or failed ingestions are not exported. New in version 2. A text
 * longer than one part continues on the `continuation_lines` source_text lines right after it.
 */
export const exportSourceSchema = z.strictObject({
  type: z.literal('source'),
  tenant: tenantSchema,
  project: projectSchema,
  source_id: sourceIdSchema,
  kind: z.enum(SOURCE_KINDS),
  format: z.enum(['text', 'markdown', 'conversation']),
  title: text(1, 500).nullable(),
  metadata: jsonObject,
  observation_date: z.iso.date().nullable(),
  /** The whole text, or its first part when `continuation_lines` follow. */
  text: text(1),
  /** How many source_text lines carry the rest of the text; absent when the text is whole. */
  continuation_lines: z.int().min(1).max(MAX_SOURCE_CONTINUATION_LINES).optional(),
  /** As the ingestion measured it (for a conversation, its turns' bytes). */
  total_bytes: z.int().min(0),
  chunk_count: z.int().min(0),
  created_by: agentSchema,
  created_at: timestamp,
  updated_at: timestamp,
  expires_at: expiresAtSchema,
});

/**
 * A part of the text of the source line above it: read only as that source's continuation, never
 * as a record of its own (the end line does not count it). `part` runs from 1 to the source line's
 * `continuation_lines`; the text is the parts' concatenation, in order.
 */
export const exportSourceTextSchema = z.strictObject({
  type: z.literal('source_text'),
  tenant: tenantSchema,
  project: projectSchema,
  source_id: sourceIdSchema,
  part: z.int().min(1).max(MAX_SOURCE_CONTINUATION_LINES),
  text: text(1, SOURCE_TEXT_PART_CHARS),
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

// A type new in version 2 (sources), 3 (relations) or 4 (evidence) counts 0 in an older file's end line, which lacks it.
const ADDED_RECORD_TYPES: ReadonlySet<ExportRecordType> = new Set(['source', 'relation', 'evidence']);
const recordCountsSchema = z.strictObject(
  Object.fromEntries(EXPORT_RECORD_TYPES.map((t) => [t, ADDED_RECORD_TYPES.has(t) ? z.int().min(0).default(0) : z.int().min(0)])) as Record<ExportRecordType, z.ZodInt>,
);

/** The last line: how many of each record the file holds, so a file cut short anywhere is refused. */
export const exportEndSchema = z.strictObject({ type: z.literal('end'), counts: recordCountsSchema });

export const EXPORT_RECORD_SCHEMAS = {
  tenant: exportTenantSchema,
  key: exportKeySchema,
  scene: exportSceneSchema,
  session: exportSessionSchema,
  source: exportSourceSchema,
  cell: exportCellSchema,
  corroboration: exportCorroborationSchema,
  relation: exportRelationSchema,
  evidence: exportEvidenceSchema,
  beacon: exportBeaconSchema,
  inbox: exportInboxSchema,
  diff: exportDiffSchema,
} as const satisfies Record<ExportRecordType, z.ZodType>;

export type ExportHeader = z.output<typeof exportHeaderSchema>;
export type ExportTenant = z.output<typeof exportTenantSchema>;
export type ExportKey = z.output<typeof exportKeySchema>;
export type ExportScene = z.output<typeof exportSceneSchema>;
export type ExportSession = z.output<typeof exportSessionSchema>;
export type ExportSource = z.output<typeof exportSourceSchema>;
export type ExportSourceText = z.output<typeof exportSourceTextSchema>;
export type ExportCell = z.output<typeof exportCellSchema>;
export type ExportCorroboration = z.output<typeof exportCorroborationSchema>;
export type ExportRelation = z.output<typeof exportRelationSchema>;
export type ExportEvidence = z.output<typeof exportEvidenceSchema>;
export type ExportBeacon = z.output<typeof exportBeaconSchema>;
export type ExportInbox = z.output<typeof exportInboxSchema>;
export type ExportDiff = z.output<typeof exportDiffSchema>;
export type ExportEnd = z.output<typeof exportEndSchema>;
export type ExportRecordCounts = ExportEnd['counts'];
export type ExportRecord = ExportTenant | ExportKey | ExportScene | ExportSession | ExportSource | ExportCell | ExportCorroboration | ExportRelation | ExportEvidence | ExportBeacon | ExportInbox | ExportDiff;

export function emptyRecordCounts(): Record<ExportRecordType, number> {
  return Object.fromEntries(EXPORT_RECORD_TYPES.map((t) => [t, 0])) as Record<ExportRecordType, number>;
}

/** What an import answers: per record type, how many the file holds and how many the import added (the rest were there already). */
export const importSummarySchema = z
  .strictObject({
    format: z.enum(['hyphae', 'server-memory', 'mem0']),
    version: z.int().min(1).nullable().describe('The export format version of a Hyphae file; null for a foreign format'),
    vectors_from_file: z.boolean().describe("false: every text was embedded by this server's embedder"),
    records: z.strictObject(
      Object.fromEntries(EXPORT_RECORD_TYPES.map((t) => [t, z.strictObject({ in_file: z.int().min(0), added: z.int().min(0) })])) as Record<
        ExportRecordType,
        z.ZodObject<{ in_file: z.ZodInt; added: z.ZodInt }, z.core.$strict>
      >,
    ),
  })
  .describe('What the import found and added');

export type ImportSummary = z.output<typeof importSummarySchema>;
