/**
 * The export format (docs/export-format.md): JSON Lines, one object per line, each with a `type`.
 * A header line first, then tenants, keys, scenes, sessions, sources, cells, corroborations,
 * relations, learnt evidence, beacons, inboxes and diffs in that order, then an end line that
 * counts them. These schemas are the format's one definition: the importer validates every line
 * with them and the exporter writes nothing they would refuse. Every object is strict; what a
 * reader of an older version could not take raises the version. Here: the version, the header and
 * end lines, the line types; the record lines are in export-record-lines.ts and export-source-lines.ts.
 */
import { z } from 'zod';
import { tenantSchema, timestamp } from './export-format-fields.js';
import {
  exportBeaconSchema,
  exportCellSchema,
  exportCorroborationSchema,
  exportDiffSchema,
  exportEvidenceSchema,
  exportInboxSchema,
  exportKeySchema,
  exportRelationSchema,
  exportSceneSchema,
  exportSessionSchema,
  exportTenantSchema,
} from './export-record-lines.js';
import { exportSourceSchema, type exportSourceTextSchema } from './export-source-lines.js';
import { projectSchema } from './schemas.js';

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
