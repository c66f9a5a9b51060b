/**
 * Conformance vectors of the HydraDB toolset, written from the HydraDB MCP server's README (its
 * tool tables: names, parameters, defaults, limits, exactly-one-of rules, deprecated names) and
 * the scope rules of issue 47. Each vector is one tools/call and what must come back: `ok`, an
 * argument refused at `invalid` (the field path), or a facade error code.
 */
export type VectorExpectation =
  /** `structured`: what structuredContent must hold (`$NOTE` replaced as in args); `text`: a line the text output must hold. */
  | { readonly ok: true; readonly structured?: Readonly<Record<string, unknown>>; readonly text?: string }
  | { readonly invalid: string }
  | { readonly error: 'NOT_FOUND' | 'FORBIDDEN' | 'CONFLICT' | 'INVALID_ARGUMENT' };

export interface HydraVector {
  readonly name: string;
  readonly tool: string;
  /** `$NOTE` is replaced by the id of a note the run ingested first, `$REQUEST` by the request_id of a query it ran, `$OTHER_DB` by a database that is not the key's. */
  readonly args: Readonly<Record<string, unknown>>;
  readonly expect: VectorExpectation;
}

const ok = { ok: true } as const;
const invalid = (path: string): VectorExpectation => ({ invalid: path });

export const HYDRADB_TOOL_NAMES = ['hydradb_query', 'hydradb_ingest', 'hydradb_list', 'hydradb_inspect', 'hydradb_delete', 'hydradb_status', 'hydradb_subgraph', 'hydradb_feedback'] as const;

/** README "Deprecated aliases": registered only with HYDRADB_MCP_LEGACY_TOOLS=1. */
export const LEGACY_ALIASES: Readonly<Record<string, string>> = {
  hydra_db_search: 'hydradb_query',
  hydra_db_store: 'hydradb_ingest',
  hydra_db_ingest_conversation: 'hydradb_ingest',
  hydra_db_list_memories: 'hydradb_list',
  hydra_db_list_sources: 'hydradb_list',
  hydra_db_fetch_content: 'hydradb_inspect',
  hydra_db_delete_memory: 'hydradb_delete',
};

/** README tables: which parameters each tool takes (plus database and collection on every tool, "Remote / hosted server"), and which are required. */
export const PARAMETERS: Readonly<Record<(typeof HYDRADB_TOOL_NAMES)[number], { readonly all: readonly string[]; readonly required: readonly string[] }>> = {
  hydradb_query: {
    all: ['query', 'kind', 'max_results', 'mode', 'detail', 'graph_context', 'operator', 'source_ids', 'titles', 'metadata_filters', 'num_related_chunks', 'recency_bias', 'query_apps', 'collections', 'database', 'collection'],
    required: ['query'],
  },
  hydradb_ingest: {
    all: ['text', 'turns', 'kind', 'title', 'source_id', 'overwrite', 'infer', 'is_markdown', 'metadata', 'observation_date', 'user_name', 'database', 'collection'],
    required: [],
  },
  hydradb_list: { all: ['kind', 'ids', 'source_ids', 'page', 'page_size', 'database', 'collection'], required: ['kind'] },
  // id is required by the README, but its deprecated alias source_id may stand in for it, so the schema cannot require it.
  hydradb_inspect: { all: ['id', 'source_id', 'mode', 'offset', 'limit', 'expiry_seconds', 'database', 'collection'], required: [] },
  hydradb_delete: { all: ['ids', 'id', 'kind', 'database', 'collection'], required: [] },
  hydradb_status: { all: ['ids', 'database', 'collection'], required: ['ids'] },
  hydradb_subgraph: { all: ['id', 'kind', 'depth', 'max_sources', 'database', 'collection'], required: ['id'] },
  hydradb_feedback: { all: ['request_id', 'feedback', 'rating', 'ground_truth_answer', 'ground_truth_source_ids', 'metadata', 'database', 'collection'], required: ['request_id'] },
};

/** README annotations: delete is destructive; ingest may replace (destructive); the reads are read-only. */
export const READ_ONLY: readonly string[] = ['hydradb_query', 'hydradb_list', 'hydradb_inspect', 'hydradb_status', 'hydradb_subgraph'];
export const DESTRUCTIVE: readonly string[] = ['hydradb_delete', 'hydradb_ingest'];

export const VECTORS: readonly HydraVector[] = [
  // hydradb_query
  { name: 'query: only the query', tool: 'hydradb_query', args: { query: 'deploy window' }, expect: ok },
  { name: 'query: missing', tool: 'hydradb_query', args: {}, expect: invalid('query') },
  { name: 'query: max_results 1', tool: 'hydradb_query', args: { query: 'q', max_results: 1 }, expect: ok },
  { name: 'query: max_results 50', tool: 'hydradb_query', args: { query: 'q', max_results: 50 }, expect: ok },
  { name: 'query: max_results 0', tool: 'hydradb_query', args: { query: 'q', max_results: 0 }, expect: invalid('max_results') },
  { name: 'query: max_results 51', tool: 'hydradb_query', args: { query: 'q', max_results: 51 }, expect: invalid('max_results') },
  { name: 'query: kind memory', tool: 'hydradb_query', args: { query: 'q', kind: 'memory' }, expect: ok },
  { name: 'query: kind knowledge', tool: 'hydradb_query', args: { query: 'q', kind: 'knowledge' }, expect: ok },
  { name: 'query: kind other', tool: 'hydradb_query', args: { query: 'q', kind: 'documents' }, expect: invalid('kind') },
  { name: 'query: mode fast', tool: 'hydradb_query', args: { query: 'q', mode: 'fast' }, expect: ok },
  { name: 'query: mode thinking', tool: 'hydradb_query', args: { query: 'q', mode: 'thinking' }, expect: ok },
  { name: 'query: mode auto', tool: 'hydradb_query', args: { query: 'q', mode: 'auto' }, expect: ok },
  { name: 'query: mode other', tool: 'hydradb_query', args: { query: 'q', mode: 'slow' }, expect: invalid('mode') },
  { name: 'query: detail full', tool: 'hydradb_query', args: { query: 'q', detail: 'full' }, expect: ok },
  { name: 'query: detail other', tool: 'hydradb_query', args: { query: 'q', detail: 'brief' }, expect: invalid('detail') },
  { name: 'query: graph_context false', tool: 'hydradb_query', args: { query: 'q', graph_context: false }, expect: ok },
  { name: 'query: graph_context not boolean', tool: 'hydradb_query', args: { query: 'q', graph_context: 'yes' }, expect: invalid('graph_context') },
  { name: 'query: operator or', tool: 'hydradb_query', args: { query: 'deploy window', operator: 'or' }, expect: ok },
  { name: 'query: operator and', tool: 'hydradb_query', args: { query: 'deploy window', operator: 'and' }, expect: ok },
  { name: 'query: operator phrase', tool: 'hydradb_query', args: { query: 'deploy window', operator: 'phrase' }, expect: ok },
  { name: 'query: operator other', tool: 'hydradb_query', args: { query: 'q', operator: 'xor' }, expect: invalid('operator') },
  { name: 'query: source_ids', tool: 'hydradb_query', args: { query: 'q', source_ids: ['$NOTE'] }, expect: ok },
  { name: 'query: source_ids empty', tool: 'hydradb_query', args: { query: 'q', source_ids: [] }, expect: invalid('source_ids') },
  { name: 'query: titles', tool: 'hydradb_query', args: { query: 'q', titles: ['Deploy window'] }, expect: ok },
  { name: 'query: titles empty', tool: 'hydradb_query', args: { query: 'q', titles: [] }, expect: invalid('titles') },
  { name: 'query: metadata_filters', tool: 'hydradb_query', args: { query: 'q', metadata_filters: { team: 'ops' } }, expect: ok },
  { name: 'query: metadata_filters not scalar', tool: 'hydradb_query', args: { query: 'q', metadata_filters: { team: { a: 1 } } }, expect: invalid('metadata_filters.team') },
  { name: 'query: num_related_chunks 5', tool: 'hydradb_query', args: { query: 'q', num_related_chunks: 5 }, expect: ok },
  { name: 'query: num_related_chunks 6', tool: 'hydradb_query', args: { query: 'q', num_related_chunks: 6 }, expect: invalid('num_related_chunks') },
  { name: 'query: num_related_chunks -1', tool: 'hydradb_query', args: { query: 'q', num_related_chunks: -1 }, expect: invalid('num_related_chunks') },
  { name: 'query: recency_bias 1', tool: 'hydradb_query', args: { query: 'q', recency_bias: 1 }, expect: ok },
  { name: 'query: recency_bias 1.5', tool: 'hydradb_query', args: { query: 'q', recency_bias: 1.5 }, expect: invalid('recency_bias') },
  { name: 'query: recency_bias -0.1', tool: 'hydradb_query', args: { query: 'q', recency_bias: -0.1 }, expect: invalid('recency_bias') },
  { name: 'query: query_apps false', tool: 'hydradb_query', args: { query: 'q', query_apps: false }, expect: ok },
  { name: 'query: query_apps true (no connectors here)', tool: 'hydradb_query', args: { query: 'q', query_apps: true }, expect: invalid('query_apps') },
  { name: 'query: collections', tool: 'hydradb_query', args: { query: 'q', collections: ['alpha', 'beta'] }, expect: ok },
  { name: 'query: collections and collection', tool: 'hydradb_query', args: { query: 'q', collections: ['alpha'], collection: 'beta' }, expect: invalid('collections') },
  { name: 'query: another database', tool: 'hydradb_query', args: { query: 'q', database: '$OTHER_DB' }, expect: { error: 'FORBIDDEN' } },
  { name: 'query: an unknown argument', tool: 'hydradb_query', args: { query: 'q', tenant_id: 'x' }, expect: invalid('tenant_id') },
  // hydradb_ingest
  { name: 'ingest: text', tool: 'hydradb_ingest', args: { text: 'The deploy window is Tuesday 10:00 UTC.', title: 'Deploy window' }, expect: ok },
  { name: 'ingest: turns', tool: 'hydradb_ingest', args: { turns: [{ user: 'When do we deploy?', assistant: 'Tuesdays at 10:00 UTC.' }], user_name: 'Ana' }, expect: ok },
  { name: 'ingest: text and turns', tool: 'hydradb_ingest', args: { text: 'a', turns: [{ user: 'b', assistant: 'c' }] }, expect: invalid('text') },
  { name: 'ingest: neither', tool: 'hydradb_ingest', args: { title: 'empty' }, expect: invalid('text') },
  { name: 'ingest: kind knowledge, markdown', tool: 'hydradb_ingest', args: { text: '# Runbook\n\nRestart the relay.', kind: 'knowledge', is_markdown: true, infer: false }, expect: ok },
  { name: 'ingest: kind other', tool: 'hydradb_ingest', args: { text: 'a', kind: 'note' }, expect: invalid('kind') },
  { name: 'ingest: observation_date', tool: 'hydradb_ingest', args: { text: 'It rained.', observation_date: '2026-07-04', metadata: { team: 'ops' } }, expect: ok },
  { name: 'ingest: observation_date not YYYY-MM-DD', tool: 'hydradb_ingest', args: { text: 'a', observation_date: '2026-7-4' }, expect: invalid('observation_date') },
  { name: 'ingest: replace under a source_id', tool: 'hydradb_ingest', args: { text: 'Replaced note.', source_id: '$NOTE' }, expect: ok },
  { name: 'ingest: overwrite false on an existing source_id', tool: 'hydradb_ingest', args: { text: 'x', source_id: '$NOTE', overwrite: false }, expect: { error: 'CONFLICT' } },
  { name: 'ingest: another database', tool: 'hydradb_ingest', args: { text: 'x', database: '$OTHER_DB' }, expect: { error: 'FORBIDDEN' } },
  // hydradb_list
  { name: 'list: memory', tool: 'hydradb_list', args: { kind: 'memory' }, expect: ok },
  { name: 'list: knowledge, page 2 of 1', tool: 'hydradb_list', args: { kind: 'knowledge', page: 2, page_size: 1 }, expect: ok },
  { name: 'list: kind missing', tool: 'hydradb_list', args: {}, expect: invalid('kind') },
  { name: 'list: kind all', tool: 'hydradb_list', args: { kind: 'all' }, expect: invalid('kind') },
  { name: 'list: page 0', tool: 'hydradb_list', args: { kind: 'memory', page: 0 }, expect: invalid('page') },
  { name: 'list: page_size 100', tool: 'hydradb_list', args: { kind: 'memory', page_size: 100 }, expect: ok },
  { name: 'list: page_size 101', tool: 'hydradb_list', args: { kind: 'memory', page_size: 101 }, expect: invalid('page_size') },
  { name: 'list: page_size 0', tool: 'hydradb_list', args: { kind: 'memory', page_size: 0 }, expect: invalid('page_size') },
  { name: 'list: ids', tool: 'hydradb_list', args: { kind: 'memory', ids: ['$NOTE'] }, expect: ok },
  { name: 'list: deprecated source_ids', tool: 'hydradb_list', args: { kind: 'memory', source_ids: ['$NOTE'] }, expect: ok },
  { name: 'list: ids and source_ids', tool: 'hydradb_list', args: { kind: 'memory', ids: ['a'], source_ids: ['a'] }, expect: invalid('source_ids') },
  // hydradb_inspect
  { name: 'inspect: id', tool: 'hydradb_inspect', args: { id: '$NOTE' }, expect: ok },
  { name: 'inspect: deprecated source_id', tool: 'hydradb_inspect', args: { source_id: '$NOTE' }, expect: ok },
  { name: 'inspect: neither', tool: 'hydradb_inspect', args: {}, expect: invalid('id') },
  { name: 'inspect: id and source_id', tool: 'hydradb_inspect', args: { id: '$NOTE', source_id: '$NOTE' }, expect: invalid('id') },
  { name: 'inspect: limit 20000', tool: 'hydradb_inspect', args: { id: '$NOTE', offset: 3, limit: 20000 }, expect: ok },
  { name: 'inspect: limit 20001', tool: 'hydradb_inspect', args: { id: '$NOTE', limit: 20001 }, expect: invalid('limit') },
  { name: 'inspect: offset -1', tool: 'hydradb_inspect', args: { id: '$NOTE', offset: -1 }, expect: invalid('offset') },
  { name: 'inspect: mode other', tool: 'hydradb_inspect', args: { id: '$NOTE', mode: 'pdf' }, expect: invalid('mode') },
  { name: 'inspect: expiry_seconds 0', tool: 'hydradb_inspect', args: { id: '$NOTE', mode: 'url', expiry_seconds: 0 }, expect: invalid('expiry_seconds') },
  { name: 'inspect: expiry_seconds over a day', tool: 'hydradb_inspect', args: { id: '$NOTE', mode: 'url', expiry_seconds: 86401 }, expect: invalid('expiry_seconds') },
  { name: 'inspect: an id that names nothing', tool: 'hydradb_inspect', args: { id: 'no-such-item' }, expect: { error: 'NOT_FOUND' } },
  // hydradb_status
  { name: 'status: ids', tool: 'hydradb_status', args: { ids: ['$NOTE', 'no-such-item'] }, expect: ok },
  { name: 'status: ids missing', tool: 'hydradb_status', args: {}, expect: invalid('ids') },
  { name: 'status: ids empty', tool: 'hydradb_status', args: { ids: [] }, expect: invalid('ids') },
  // hydradb_subgraph
  { name: 'subgraph: id, memory', tool: 'hydradb_subgraph', args: { id: '$NOTE', kind: 'memory' }, expect: ok },
  { name: 'subgraph: depth 10, max_sources 1000', tool: 'hydradb_subgraph', args: { id: '$NOTE', kind: 'memory', depth: 10, max_sources: 1000 }, expect: ok },
  { name: 'subgraph: depth 11', tool: 'hydradb_subgraph', args: { id: '$NOTE', depth: 11 }, expect: invalid('depth') },
  { name: 'subgraph: depth 0', tool: 'hydradb_subgraph', args: { id: '$NOTE', depth: 0 }, expect: invalid('depth') },
  { name: 'subgraph: max_sources 1001', tool: 'hydradb_subgraph', args: { id: '$NOTE', max_sources: 1001 }, expect: invalid('max_sources') },
  { name: 'subgraph: id missing', tool: 'hydradb_subgraph', args: {}, expect: invalid('id') },
  { name: 'subgraph: the other family', tool: 'hydradb_subgraph', args: { id: '$NOTE', kind: 'knowledge' }, expect: { error: 'NOT_FOUND' } },
  // hydradb_feedback
  { name: 'feedback: text on a query', tool: 'hydradb_feedback', args: { request_id: '$REQUEST', feedback: 'The deploy note should have come first.', rating: 'negative' }, expect: ok },
  { name: 'feedback: ground truth', tool: 'hydradb_feedback', args: { request_id: '$REQUEST', ground_truth_source_ids: ['$NOTE'], ground_truth_answer: 'Tuesday 10:00 UTC', metadata: { run: 'conformance' } }, expect: ok },
  { name: 'feedback: neither text nor ground truth', tool: 'hydradb_feedback', args: { request_id: '$REQUEST', rating: 'neutral' }, expect: { error: 'INVALID_ARGUMENT' } },
  { name: 'feedback: request_id missing', tool: 'hydradb_feedback', args: { feedback: 'x' }, expect: invalid('request_id') },
  { name: 'feedback: request_id guessed', tool: 'hydradb_feedback', args: { request_id: 'my-query', feedback: 'x' }, expect: invalid('request_id') },
  { name: 'feedback: request_id of no query', tool: 'hydradb_feedback', args: { request_id: '00000000-0000-4000-8000-000000000000', feedback: 'x' }, expect: { error: 'NOT_FOUND' } },
  { name: 'feedback: rating other', tool: 'hydradb_feedback', args: { request_id: '$REQUEST', feedback: 'x', rating: 'great' }, expect: invalid('rating') },
  { name: 'feedback: feedback over 8000 characters', tool: 'hydradb_feedback', args: { request_id: '$REQUEST', feedback: 'x'.repeat(8001) }, expect: invalid('feedback') },
  { name: 'feedback: feedback of 8000 characters', tool: 'hydradb_feedback', args: { request_id: '$REQUEST', feedback: 'x'.repeat(8000) }, expect: ok },
  { name: 'feedback: 101 ground truth ids', tool: 'hydradb_feedback', args: { request_id: '$REQUEST', ground_truth_source_ids: Array.from({ length: 101 }, (_, i) => `s${i}`) }, expect: invalid('ground_truth_source_ids') },
  { name: 'feedback: 21 labels', tool: 'hydradb_feedback', args: { request_id: '$REQUEST', feedback: 'x', metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) }, expect: invalid('metadata') },
  { name: 'feedback: another database', tool: 'hydradb_feedback', args: { request_id: '$REQUEST', feedback: 'x', database: '$OTHER_DB' }, expect: { error: 'FORBIDDEN' } },
  // hydradb_delete (last: they remove what the others read)
  { name: 'delete: neither ids nor id', tool: 'hydradb_delete', args: {}, expect: invalid('ids') },
  { name: 'delete: ids and id', tool: 'hydradb_delete', args: { ids: ['a'], id: 'a' }, expect: invalid('ids') },
  { name: 'delete: ids empty', tool: 'hydradb_delete', args: { ids: [] }, expect: invalid('ids') },
  { name: 'delete: kind other', tool: 'hydradb_delete', args: { id: 'a', kind: 'all' }, expect: invalid('kind') },
  { name: 'delete: the other family', tool: 'hydradb_delete', args: { id: '$NOTE', kind: 'knowledge' }, expect: { error: 'NOT_FOUND' } },
  { name: 'delete: another database', tool: 'hydradb_delete', args: { id: '$NOTE', database: '$OTHER_DB' }, expect: { error: 'FORBIDDEN' } },
  {
    name: 'delete: id, with its receipt',
    tool: 'hydradb_delete',
    args: { id: '$NOTE' },
    expect: { ok: true, structured: { deleted: ['$NOTE'], not_found: [], receipts: [{ id: '$NOTE', counts: { sources: 1, chunks: 1, lexical_terms: 1 } }] }, text: '- $NOTE: ' },
  },
  { name: 'delete: id again', tool: 'hydradb_delete', args: { id: '$NOTE' }, expect: { error: 'NOT_FOUND' } },
];
