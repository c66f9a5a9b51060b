/**
 * hydradb_query: recall over memories and knowledge at once, with graph context. The HydraDB modes
 * map onto Hyphae's recall modes (fast → vector, thinking → hybrid, auto → the server's configured
 * mode); an operator switches to lexical recall, `and` and `phrase` keeping only texts that hold
 * every word or the phrase. Every other parameter is a recall filter of the facade.
 */
import { z } from 'zod';
import type { SearchMode } from '../../../core/cell-types.js';
import { InvalidArgumentError } from '../../../core/errors.js';
import type { RecallHit } from '../../../core/entities.js';
import { chunkOfSourceSchema } from '../../../core/output-schemas.js';
import { relationSchema } from '../../../core/relation-schemas.js';
import { metadataFilterSchema, projectSchema } from '../../../core/schemas.js';
import { sourceIdSchema } from '../../../core/source-schemas.js';
import { STORABLE_TEXT_MESSAGE, isStorableText } from '../../../core/text-rules.js';
import { defineHydraTool, scopeFields } from './hydradb-tool.js';
import type { HydraTool } from './hydradb-tool.js';
import { itemIdOf } from './hydradb-items.js';
import { projectOfCall, requireCollection } from './hydradb-scope.js';
import { quotedText } from '../quoted-text.js';

/** HydraDB's recall modes, as Hyphae's (undefined: the server's HYPHAE_RECALL_MODE). */
export const QUERY_MODES: Readonly<Record<'fast' | 'thinking' | 'auto', SearchMode | undefined>> = { fast: 'vector', thinking: 'hybrid', auto: undefined };
/** Characters of a result's text `detail: compact` keeps. */
export const COMPACT_CHARS = 400;
/** Words an `and` query may hold (each becomes a condition of the search). */
const MAX_AND_WORDS = 32;

const storable = (max: number): z.ZodString => z.string().min(1).max(max).refine(isStorableText, STORABLE_TEXT_MESSAGE);

export const hydraQueryInput = z
  .strictObject({
    query: storable(32 * 1024).describe('What you want to know, as a question or topic'),
    kind: z.enum(['memory', 'knowledge', 'all']).default('all').describe('memory, knowledge, or all (default)'),
    max_results: z.int().min(1).max(50).default(10).describe('Most results to return (1–50, default 10)'),
    mode: z.enum(['fast', 'thinking', 'auto']).default('thinking').describe('fast (by meaning), thinking (default: meaning raised by matching words and identifiers), auto (the server’s configured mode)'),
    detail: z.enum(['compact', 'full']).default('compact').describe(`compact (default) trims each result to ${COMPACT_CHARS} characters; full returns it whole`),
    graph_context: z.boolean().default(true).describe('Each result’s one-hop relations (default true)'),
    operator: z.enum(['or', 'and', 'phrase']).optional().describe('Keyword retrieval only (no meaning): or any word, and every word, phrase the exact phrase; unset: hybrid'),
    source_ids: z.array(sourceIdSchema).min(1).max(100).optional().describe('Only these sources'),
    titles: z.array(storable(500)).min(1).max(100).optional().describe('Only sources with these exact titles (ignoring case)'),
    metadata_filters: metadataFilterSchema.optional(),
    num_related_chunks: z.int().min(0).max(5).default(0).describe('Adjacent chunks to name per result (0–5, default 0)'),
    recency_bias: z.number().min(0).max(1).default(0).describe('0 (default) to 1: newer items move up; never excludes older ones'),
    query_apps: z.boolean().default(false).describe('Connector-aware retrieval: Hyphae holds no connector sources, so only false is accepted'),
    collections: z.array(projectSchema).min(1).max(20).optional().describe('Search several collections at once; never together with collection'),
    ...scopeFields,
  })
  .refine((args) => args.collections === undefined || args.collection === undefined, { path: ['collections'], message: 'pass collections or collection, never both' })
  .refine((args) => !args.query_apps, { path: ['query_apps'], message: 'Hyphae holds no connector sources: app-aware retrieval is not offered' });

const hitSchema = z.strictObject({
  id: z.string().describe('The item: a source’s source_id, or a memory cell’s node_id'),
  node_id: z.string().describe('The cell that matched (a chunk of the source, or the memory itself)'),
  project: z.string(),
  score: z.number(),
  text: z.string(),
  truncated: z.boolean().describe('detail compact cut the text'),
  source: chunkOfSourceSchema.optional(),
  related_chunks: z.array(z.string()).optional(),
  relations: z.array(relationSchema).optional(),
});

export const hydraQueryOutput = z.strictObject({
  results: z.array(hitSchema),
  mode: z.enum(['vector', 'lexical', 'hybrid', 'configured']).describe('The Hyphae recall mode that ran'),
  request_id: z.string().describe('This query’s id: quote it verbatim to hydradb_feedback'),
});

type QueryArgs = z.output<typeof hydraQueryInput>;

/** The words of an `and` query, lower-cased, each once. */
function wordsOf(query: string): string[] {
  const words = [...new Set(query.toLowerCase().split(/\s+/).filter((word) => word.length > 0))];
  if (words.length > MAX_AND_WORDS) throw new InvalidArgumentError(`operator and takes at most ${MAX_AND_WORDS} words`, [{ path: 'query', message: `at most ${MAX_AND_WORDS} words with operator and` }]);
  return words;
}

function containsAllOf(args: QueryArgs): readonly string[] | undefined {
  if (args.operator === 'and') return wordsOf(args.query);
  if (args.operator === 'phrase') return [args.query.trim()];
  return undefined;
}

function renderHit(hit: z.output<typeof hitSchema>, index: number): string {
  const where = hit.source === undefined ? `memory ${hit.id}` : `source ${hit.id} · chunk ${hit.source.chunk_index}`;
  // The stored text as one JSON string: another agent's words stay data and cannot forge a result or the request_id line.
  const lines = [`${index + 1}. [${where} · score ${hit.score.toFixed(3)}]`, `   text: ${quotedText(hit.text)}`];
  for (const relation of hit.relations ?? []) lines.push(`   ${relation.from} -[${relation.type}]-> ${relation.to}`);
  return lines.join('\n');
}

export function renderQueryText(output: z.output<typeof hydraQueryOutput>): string {
  const head = output.results.length === 0 ? 'No results.' : `${output.results.length} result${output.results.length === 1 ? '' : 's'} (recall mode ${output.mode}):`;
  const parts = [head, ...output.results.map(renderHit)];
  parts.push(`request_id: ${output.request_id}`);
  return parts.join('\n\n');
}

function projectHit(hit: RecallHit, detail: 'compact' | 'full'): z.output<typeof hitSchema> {
  const content = hit.node?.content ?? '';
  const truncated = detail === 'compact' && content.length > COMPACT_CHARS;
  return {
    id: itemIdOf(hit.node_id, hit.source),
    node_id: hit.node_id,
    project: hit.node?.project ?? '',
    score: hit.score,
    text: truncated ? `${content.slice(0, COMPACT_CHARS)}…` : content,
    truncated,
    ...(hit.source === undefined ? {} : { source: { ...hit.source } }),
    ...(hit.related_chunks === undefined ? {} : { related_chunks: [...hit.related_chunks] }),
    ...(hit.relations === undefined ? {} : { relations: hit.relations.map((relation) => ({ ...relation })) }),
  };
}

export const hydraQueryTool: HydraTool = defineHydraTool({
  name: 'hydradb_query',
  title: 'Query memories and knowledge',
  description:
    'Search your memories and ingested knowledge together and get the matching texts with their ids, a relevance score and their ' +
    'graph context (one-hop relations). mode fast searches by meaning, thinking (default) by meaning raised by matching words and ' +
    'identifiers, auto as the server is configured; operator (or, and, phrase) switches to keyword retrieval. Narrow with kind, ' +
    'source_ids, titles, metadata_filters and collections. The request_id printed last identifies this query to hydradb_feedback.',
  input: hydraQueryInput,
  output: hydraQueryOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(facade, principal, args, call) {
    const project = projectOfCall(principal, call, args);
    const projects = args.collections?.map((collection) => requireCollection(principal, collection));
    const mode = args.operator === undefined ? QUERY_MODES[args.mode] : 'lexical';
    const containsAll = containsAllOf(args);
    const result = await facade.recall(
      principal,
      {
        query: args.query,
        k: args.max_results,
        kind: args.kind,
        ...(mode === undefined ? {} : { mode }),
        ...(args.metadata_filters === undefined ? {} : { metadata: args.metadata_filters }),
        recency_bias: args.recency_bias,
        num_related_chunks: args.num_related_chunks,
        graph_context: args.graph_context,
      },
      {
        withNodes: true,
        ...(project === undefined ? {} : { project }),
        ...(projects === undefined ? {} : { projects }),
        ...(args.source_ids === undefined ? {} : { sourceIds: args.source_ids }),
        ...(args.titles === undefined ? {} : { titles: args.titles }),
        ...(containsAll === undefined ? {} : { containsAll }),
      },
    );
    const structured = { results: result.results.map((hit) => projectHit(hit, args.detail)), mode: mode ?? ('configured' as const), request_id: result.request_id };
    return { structured, links: [], text: renderQueryText(structured) };
  },
});
