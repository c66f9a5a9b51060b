/**
 * The sources RPCs of hyphae.v1.MemoryService (docs/sources.md): each request becomes the object
 * /v1/sources (and /v1/sources/{id}/chunks) would have parsed, validated with the same schema as there, so gRPC answers
 * what REST answers, with the same error codes.
 */
import type { ServiceImpl } from '@connectrpc/connect';
import { ingestSourceInputSchema, listSourcesInputSchema, readSourceInputSchema, sourceChunksInputSchema, sourceRefInputSchema } from '../core/source-schemas.js';
import { parseInput } from '../service/index.js';
import { principalOf } from './call-context.js';
import {
  DeleteSourceRequestSchema,
  DeleteSourceResponseSchema,
  GetSourceStatusRequestSchema,
  GetSourceStatusResponseSchema,
  IngestSourceRequestSchema,
  IngestSourceResponseSchema,
  ListSourceChunksRequestSchema,
  ListSourceChunksResponseSchema,
  ListSourcesRequestSchema,
  ListSourcesResponseSchema,
  ReadSourceRequestSchema,
  ReadSourceResponseSchema,
  type MemoryService,
} from './gen/hyphae/v1/memory_pb.js';
import { fieldsOf, messageOf } from './message-mapping.js';
import type { MemoryServiceFacade } from './memory-service.js';

export type SourceRpcs = Pick<ServiceImpl<typeof MemoryService>, 'ingestSource' | 'listSources' | 'readSource' | 'getSourceStatus' | 'deleteSource' | 'listSourceChunks'>;

export function sourceRpcs(facade: MemoryServiceFacade): SourceRpcs {
  return {
    async ingestSource(request, context) {
      const ingested = await facade.ingestSource(principalOf(context), parseInput(ingestSourceInputSchema, fieldsOf(IngestSourceRequestSchema, request)));
      return messageOf(IngestSourceResponseSchema, { status: ingested, kind: ingested.kind, title: ingested.title });
    },
    async listSources(request, context) {
      return messageOf(ListSourcesResponseSchema, await facade.listSources(principalOf(context), parseInput(listSourcesInputSchema, fieldsOf(ListSourcesRequestSchema, request))));
    },
    async readSource(request, context) {
      const slice = await facade.readSource(principalOf(context), parseInput(readSourceInputSchema, fieldsOf(ReadSourceRequestSchema, request)));
      return messageOf(ReadSourceResponseSchema, { source: slice, state: slice.state, offset: slice.offset, text: slice.text, next_offset: slice.next_offset });
    },
    async getSourceStatus(request, context) {
      return messageOf(GetSourceStatusResponseSchema, { status: await facade.sourceStatus(principalOf(context), parseInput(sourceRefInputSchema, fieldsOf(GetSourceStatusRequestSchema, request))) });
    },
    async deleteSource(request, context) {
      const receipt = await facade.deleteSource(principalOf(context), parseInput(sourceRefInputSchema, fieldsOf(DeleteSourceRequestSchema, request)));
      return messageOf(DeleteSourceResponseSchema, { receipt });
    },
    async listSourceChunks(request, context) {
      const page = await facade.sourceChunks(principalOf(context), parseInput(sourceChunksInputSchema, fieldsOf(ListSourceChunksRequestSchema, request)));
      return messageOf(ListSourceChunksResponseSchema, page);
    },
  };
}
