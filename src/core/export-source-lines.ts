/** The schemas of the export format's source lines (export-format.ts, docs/export-format.md): a source, and the parts of a text too long for one line. */
import { z } from 'zod';
import { agentSchema, expiresAtSchema, jsonObject, tenantSchema, text, timestamp } from './export-format-fields.js';
import { SOURCE_KINDS, sourceIdSchema } from './source-schemas.js';
import { projectSchema } from './schemas.js';

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
