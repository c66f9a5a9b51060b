/**
 * Request and response schemas of sources (docs/sources.md): documents and conversations ingested
 * whole, chunked into cells, read back in slices. One schema validates a call and generates the
 * OpenAPI document, like src/core/schemas.ts.
 */
import { z } from 'zod';
import { expiryFields, projectSchema } from './schemas.js';
import { STORABLE_TEXT_MESSAGE, isStorableText, jsonValueProblem } from './text-rules.js';

export const SOURCE_KINDS = ['knowledge', 'memory'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];
export const SOURCE_STATES = ['queued', 'indexing', 'ready', 'failed'] as const;
export type SourceState = (typeof SOURCE_STATES)[number];
export const SOURCE_TEXT_FORMATS = ['text', 'markdown'] as const;

/** Characters (Unicode code points) one slice returns at most, and by default. */
export const MAX_SLICE_CHARS = 20_000;
/** The furthest offset a read takes: the store adds 1 to it as a 32-bit integer, and no source is this long. */
export const MAX_SOURCE_OFFSET = 2 ** 31 - 2;
/** Metadata of a source, serialised, at most (as a cell's). */
export const MAX_SOURCE_METADATA_BYTES = 16 * 1024;

const storable = (min: number, max: number): z.ZodString => z.string().min(min).max(max).refine(isStorableText, STORABLE_TEXT_MESSAGE);

export const sourceIdSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/, 'letters, digits, ".", "_", ":", "-"; starting with a letter or digit')
  .describe('The source’s id in its project: chosen by the client or generated');

const metadataSchema = z
  .record(z.string(), z.unknown())
  .superRefine((value, context) => {
    const problem = jsonValueProblem(value);
    if (problem !== null) context.addIssue({ code: 'custom', message: `metadata holds ${problem}` });
  })
  .describe('Free-form JSON object, at most 16 KiB serialised');

const turnSchema = z.strictObject({
  user: z.string().refine(isStorableText, STORABLE_TEXT_MESSAGE).describe('What the user said'),
  assistant: z.string().refine(isStorableText, STORABLE_TEXT_MESSAGE).describe('What the assistant answered'),
});

const dateSchema = z.iso.date().describe('When what the source says was true (YYYY-MM-DD), as opposed to when it was stored');

export const ingestSourceInputSchema = z.strictObject({
  text: z.string().refine(isStorableText, STORABLE_TEXT_MESSAGE).optional().describe('A document or note; send this or turns, not both'),
  turns: z.array(turnSchema).min(1).optional().describe('A conversation, turn by turn; send this or text, not both'),
  user_name: storable(1, 100).optional().describe('What to call the user in a conversation (default "User")'),
  format: z.enum(SOURCE_TEXT_FORMATS).optional().describe('How to chunk text: "markdown" on its structure, "text" on paragraphs (default)'),
  kind: z.enum(SOURCE_KINDS).optional().describe('"knowledge" (default for text) or "memory" (default for turns)'),
  title: storable(1, 500).optional().describe('Shown with every chunk and heads its heading path'),
  source_id: sourceIdSchema.optional().describe('Reusing an id replaces that source (unless overwrite is false); default: a generated id'),
  overwrite: z.boolean().default(true).describe('false: an existing source_id is a CONFLICT instead of a replacement'),
  metadata: metadataSchema.optional(),
  observation_date: dateSchema.optional(),
  project: projectSchema.optional().describe('The project (within your key’s scope); default: your current project'),
  ...expiryFields('source (with its chunks)'),
});
/** What a caller sends (defaults optional); the facade parses it. */
export type IngestSourceInput = z.input<typeof ingestSourceInputSchema>;

const sourceProjectField = projectSchema.optional().describe('The source’s project (within your key’s scope); default: your current project');

export const sourceRefInputSchema = z.strictObject({ source_id: sourceIdSchema, project: sourceProjectField });
export type SourceRefInput = z.output<typeof sourceRefInputSchema>;

export const readSourceInputSchema = z.strictObject({
  source_id: sourceIdSchema,
  project: sourceProjectField,
  offset: z.int().min(0).max(MAX_SOURCE_OFFSET).default(0).describe(`First character to read (Unicode code points from 0, at most ${MAX_SOURCE_OFFSET}); past the end reads an empty slice`),
  limit: z.int().min(1).max(MAX_SLICE_CHARS).default(MAX_SLICE_CHARS).describe(`Characters to read at most (1–${MAX_SLICE_CHARS})`),
});
export type ReadSourceInput = z.input<typeof readSourceInputSchema>;

export const listSourcesInputSchema = z.strictObject({
  kind: z.enum(SOURCE_KINDS).optional().describe('Only this kind; default: both'),
  project: sourceProjectField,
  limit: z.int().min(1).max(100).default(20).describe('Sources per page (1–100)'),
  cursor: storable(1, 512).optional().describe('Opaque cursor from a previous page'),
});
export type ListSourcesInput = z.input<typeof listSourcesInputSchema>;

const timestampSchema = z.iso.datetime({ offset: true });

export const sourceStatusSchema = z.strictObject({
  source_id: z.string(),
  project: z.string(),
  state: z.enum(SOURCE_STATES).describe('queued, indexing (chunks_done of chunks_total embedded), ready (searchable) or failed (see failure)'),
  chunks_done: z.int().min(0),
  chunks_total: z.int().min(0),
  failure: z.string().nullable().describe('Why it failed; null otherwise'),
  /** True when an earlier version is still served (searchable, readable) while this one is queued, indexing or failed. */
  serving_previous: z.boolean().describe('An earlier version is still served while this one is pending or failed'),
  updated_at: timestampSchema,
});
export type SourceStatus = z.output<typeof sourceStatusSchema>;

export const sourceSummarySchema = z.strictObject({
  source_id: z.string(),
  project: z.string(),
  kind: z.enum(SOURCE_KINDS),
  format: z.enum(['text', 'markdown', 'conversation']),
  title: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  observation_date: z.string().nullable().describe('YYYY-MM-DD'),
  total_chars: z.int().min(0).describe('Length in Unicode code points'),
  total_bytes: z.int().min(0).describe('Length in UTF-8 bytes'),
  chunk_count: z.int().min(0),
  created_by: z.string().describe('The agent that ingested it (from its key, never the body)'),
  created_at: timestampSchema,
  updated_at: timestampSchema,
});
export type SourceSummary = z.output<typeof sourceSummarySchema>;

export const sourceSliceSchema = sourceSummarySchema.extend({
  state: z.enum(SOURCE_STATES),
  offset: z.int().min(0),
  text: z.string().describe('The characters [offset, offset + limit) of the source'),
  next_offset: z.int().min(0).nullable().describe('Where the next slice starts; null when this one reaches the end'),
});
export type SourceSlice = z.output<typeof sourceSliceSchema>;

export const sourcesPageSchema = z.strictObject({ sources: z.array(sourceSummarySchema), next_cursor: z.string().nullable() });
export type SourcesPage = z.output<typeof sourcesPageSchema>;

export const ingestedSourceSchema = sourceStatusSchema.extend({ kind: z.enum(SOURCE_KINDS), title: z.string().nullable() });
export type IngestedSource = z.output<typeof ingestedSourceSchema>;


/** Chunks one page of GET /v1/sources/{id}/chunks answers at most. */
export const MAX_CHUNKS_PER_PAGE = 200;

export const sourceChunksInputSchema = z.strictObject({
  source_id: sourceIdSchema,
  project: sourceProjectField,
  version: z.enum(['served', 'pending']).optional().describe('served: the chunks recall finds; pending: those of the ingestion under way. Default: served when there is one, else pending'),
  limit: z.int().min(1).max(MAX_CHUNKS_PER_PAGE).default(50).describe(`Chunks per page (1–${MAX_CHUNKS_PER_PAGE})`),
  cursor: storable(1, 64).optional().describe('Opaque cursor from a previous page'),
});
export type SourceChunksInput = z.input<typeof sourceChunksInputSchema>;

export const sourceChunkSchema = z.strictObject({
  chunk_index: z.int().min(0),
  node_id: z.string().nullable().describe('The chunk cell (served chunks); null for a pending chunk, which is no cell yet'),
  char_start: z.int().min(0).describe('First character of the chunk in the source (code points)'),
  char_end: z.int().min(0).describe('One past its last character'),
  heading_path: z.string().describe('The heading path embedded with it ("Title › Section › Subsection"; "" when none)'),
  status: z.enum(['ready', 'embedded', 'waiting']).describe('ready: a searchable chunk cell; embedded: a pending chunk with its vector; waiting: a pending chunk not yet embedded'),
});
export type SourceChunk = z.output<typeof sourceChunkSchema>;

export const sourceChunksPageSchema = z.strictObject({
  source_id: z.string(),
  project: z.string(),
  version: z.enum(['served', 'pending']),
  state: z.enum(SOURCE_STATES).describe('ready for the served version; the ingestion’s state for the pending one'),
  chunks_total: z.int().min(0),
  chunks: z.array(sourceChunkSchema),
  next_cursor: z.string().nullable(),
});
export type SourceChunksPage = z.output<typeof sourceChunksPageSchema>;
