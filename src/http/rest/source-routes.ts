/** `/v1/sources`: ingest documents and conversations, read them in slices, list, delete and follow their ingestion (docs/rest.md, docs/sources.md). */
import { z } from 'zod';
import {
  ingestedSourceSchema,
  ingestSourceInputSchema,
  listSourcesInputSchema,
  readSourceInputSchema,
  sourceChunksInputSchema,
  sourceChunksPageSchema,
  sourceIdSchema,
  sourceSliceSchema,
  sourcesPageSchema,
  sourceStatusSchema,
} from '../../core/source-schemas.js';
import { projectSchema } from '../../core/schemas.js';
import { erasureReceiptSchema } from '../../core/erasure-schemas.js';
import { defineRoute, type RestRoute } from './rest-route.js';

/**
 * A source's JSON body may be larger than the server's JSON limit: its text is bounded by
 * HYPHAE_SOURCE_MAX_BYTES (at most 32 MiB), checked by the facade with a TOO_LARGE naming it; this
 * bounds the body around it (escapes, turns, metadata).
 */
export const SOURCE_BODY_LIMIT_BYTES = 40 * 1024 * 1024;

const sourceParamsSchema = z.strictObject({ id: sourceIdSchema });
const projectQuerySchema = z.strictObject({ project: projectSchema.optional().describe('The source’s project; default: your current project') });
const sliceQuerySchema = readSourceInputSchema.omit({ source_id: true }).extend({
  link: z.string().min(1).max(4096).optional().describe('A signed link from hydradb_inspect (mode url): reads this slice without a key, with project, offset and limit as signed'),
});
const chunksQuerySchema = sourceChunksInputSchema.omit({ source_id: true });

export const sourceRoutes: readonly RestRoute[] = [
  defineRoute({
    method: 'POST',
    url: '/v1/sources',
    operationId: 'ingestSource',
    summary: 'Ingest a document (text, markdown) or a conversation (turns): ready when searchable on return, else queued for the background',
    tag: 'sources',
    bodyLimitBytes: SOURCE_BODY_LIMIT_BYTES,
    schemas: { body: ingestSourceInputSchema },
    success: { status: 201, description: 'The source and the state of its ingestion', schema: ingestedSourceSchema },
    errors: ['CONFLICT', 'TOO_LARGE'],
    async handle(facade, { principal, body }) {
      return { status: 201, payload: await facade.ingestSource(principal, body) };
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/v1/sources',
    operationId: 'listSources',
    summary: 'List the project’s sources, newest first, optionally of one kind',
    tag: 'sources',
    schemas: { query: listSourcesInputSchema },
    success: { status: 200, description: 'One page of sources', schema: sourcesPageSchema },
    errors: [],
    async handle(facade, { principal, query }) {
      return { status: 200, payload: await facade.listSources(principal, query) };
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/v1/sources/:id',
    operationId: 'readSource',
    summary: 'Read a source: its fields and the characters [offset, offset + limit) of its text, with total_chars and next_offset',
    tag: 'sources',
    schemas: { params: sourceParamsSchema, query: sliceQuerySchema },
    success: { status: 200, description: 'The source and one slice of its text', schema: sourceSliceSchema },
    errors: ['NOT_FOUND'],
    acceptsSourceLink: true,
    async handle(facade, { principal, params, query }) {
      const { link: _signed, ...slice } = query;
      return { status: 200, payload: await facade.readSource(principal, { ...slice, source_id: params.id }) };
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/v1/sources/:id/status',
    operationId: 'sourceStatus',
    summary: 'Where the source’s latest ingestion stands: queued, indexing (chunks done of total), ready or failed (with the reason)',
    tag: 'sources',
    schemas: { params: sourceParamsSchema, query: projectQuerySchema },
    success: { status: 200, description: 'The ingestion state', schema: sourceStatusSchema },
    errors: ['NOT_FOUND'],
    async handle(facade, { principal, params, query }) {
      return { status: 200, payload: await facade.sourceStatus(principal, { ...query, source_id: params.id }) };
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/v1/sources/:id/chunks',
    operationId: 'sourceChunks',
    summary: 'Page through a source’s chunks in order: cell id, character range, heading path and status, of the served version or the pending ingestion',
    tag: 'sources',
    schemas: { params: sourceParamsSchema, query: chunksQuerySchema },
    success: { status: 200, description: 'One page of chunks', schema: sourceChunksPageSchema },
    errors: ['NOT_FOUND'],
    async handle(facade, { principal, params, query }) {
      return { status: 200, payload: await facade.sourceChunks(principal, { ...query, source_id: params.id }) };
    },
  }),
  defineRoute({
    method: 'DELETE',
    url: '/v1/sources/:id',
    operationId: 'deleteSource',
    summary: 'Erase a source with its chunks and every copy of their text (terms, relations, diff previews); answers the receipt',
    tag: 'sources',
    schemas: { params: sourceParamsSchema, query: projectQuerySchema },
    success: { status: 200, description: 'The receipt: copies removed by kind (docs/forgetting.md)', schema: erasureReceiptSchema },
    errors: ['NOT_FOUND'],
    async handle(facade, { principal, params, query }) {
      return { status: 200, payload: await facade.deleteSource(principal, { ...query, source_id: params.id }) };
    },
  }),
];
