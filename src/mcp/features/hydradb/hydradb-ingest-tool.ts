/**
 * hydradb_ingest: a note, a document or a conversation saved as a source (docs/sources.md) — chunked,
 * embedded, gossiped to the beacons it matches like any source. Exactly one of text or turns.
 */
import { z } from 'zod';
import { SOURCE_KINDS, SOURCE_STATES, ingestSourceInputSchema } from '../../../core/source-schemas.js';
import { defineHydraTool, scopeFields } from './hydradb-tool.js';
import type { HydraTool } from './hydradb-tool.js';
import { projectOfCall } from './hydradb-scope.js';

const fields = ingestSourceInputSchema.shape;

export const hydraIngestInput = z
  .strictObject({
    text: fields.text.describe('A note, fact, decision or document body; send this or turns, not both'),
    turns: fields.turns.describe('Conversation turns, each {user, assistant}; send this or text, not both'),
    kind: z.enum(SOURCE_KINDS).default('memory').describe('memory (default), or knowledge for a document'),
    title: fields.title.describe('Label shown with later results — always set it'),
    source_id: fields.source_id.describe('Identifier for this entry; reusing one REPLACES what is stored under it (unless overwrite is false)'),
    overwrite: z.boolean().default(true).describe('Allow that replacement (default true); false refuses an existing source_id'),
    infer: z.boolean().default(true).describe('Accepted for HydraDB clients; Hyphae stores the text as given either way (no model extracts insights)'),
    is_markdown: z.boolean().default(false).describe('Chunk text on its markdown structure (default false)'),
    metadata: fields.metadata,
    observation_date: fields.observation_date.describe('When it was true, as YYYY-MM-DD (e.g. 2026-07-04), as opposed to when it was stored'),
    user_name: fields.user_name.describe('What to call the user in turns (default "User")'),
    ...scopeFields,
  })
  .refine((args) => (args.text === undefined) !== (args.turns === undefined), { path: ['text'], message: 'send exactly one of text or turns' });

export const hydraIngestOutput = z.strictObject({
  id: z.string().describe('The source_id: pass it to hydradb_status, hydradb_inspect, hydradb_delete'),
  kind: z.enum(SOURCE_KINDS),
  project: z.string(),
  title: z.string().nullable(),
  state: z.enum(SOURCE_STATES).describe('ready: searchable now; queued/indexing: being embedded (hydradb_status)'),
  chunks_done: z.int(),
  chunks_total: z.int(),
});

export const hydraIngestTool: HydraTool = defineHydraTool({
  name: 'hydradb_ingest',
  title: 'Save a note, document or conversation',
  description:
    'Save information so it outlives the session: a note or document as text, or a conversation as turns [{user, assistant}] — ' +
    'exactly one of the two. kind memory (default) or knowledge; always set a title. Reusing a source_id REPLACES what is stored ' +
    'under it (overwrite: false refuses instead). Small entries are searchable on return (state ready); larger ones are embedded in ' +
    'the background: check hydradb_status. Agents whose beacons match it hear of it.',
  input: hydraIngestInput,
  output: hydraIngestOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async run(facade, principal, args, call) {
    const project = projectOfCall(principal, call, args);
    const ingested = await facade.ingestSource(principal, {
      ...(args.text === undefined ? {} : { text: args.text, ...(args.is_markdown ? { format: 'markdown' as const } : {}) }),
      ...(args.turns === undefined ? {} : { turns: args.turns }),
      kind: args.kind,
      overwrite: args.overwrite,
      ...(args.title === undefined ? {} : { title: args.title }),
      ...(args.source_id === undefined ? {} : { source_id: args.source_id }),
      ...(args.metadata === undefined ? {} : { metadata: args.metadata }),
      ...(args.observation_date === undefined ? {} : { observation_date: args.observation_date }),
      ...(args.user_name === undefined ? {} : { user_name: args.user_name }),
      ...(project === undefined ? {} : { project }),
    });
    const structured = {
      id: ingested.source_id,
      kind: ingested.kind,
      project: ingested.project,
      title: ingested.title,
      state: ingested.state,
      chunks_done: ingested.chunks_done,
      chunks_total: ingested.chunks_total,
    };
    const next = structured.state === 'ready' ? 'searchable now' : 'being indexed: check hydradb_status';
    return { structured, links: [], text: `Saved ${structured.kind} ${structured.id} in collection ${structured.project} (${structured.state}, ${next}).` };
  },
});
