/**
 * The relations RPCs of hyphae.v1.MemoryService (docs/relations.md): each request becomes the object
 * /v1/cells/{id}/relations or /v1/cells/{id}/subgraph would have parsed, validated by the facade
 * with the same schema as there, so gRPC answers what REST answers, with the same error codes.
 */
import type { ServiceImpl } from '@connectrpc/connect';
import { addRelationsInputSchema, deleteRelationInputSchema } from '../core/relation-schemas.js';
import { parseInput } from '../service/index.js';
import { principalOf } from './call-context.js';
import {
  AddRelationsRequestSchema,
  CellRelationsResponseSchema,
  DeleteRelationRequestSchema,
  DeleteRelationResponseSchema,
  SubgraphRequestSchema,
  SubgraphResponseSchema,
  type MemoryService,
} from './gen/hyphae/v1/memory_pb.js';
import { fieldsOf, messageOf } from './message-mapping.js';
import type { MemoryServiceFacade } from './memory-service.js';

export type RelationRpcs = Pick<ServiceImpl<typeof MemoryService>, 'listRelations' | 'addRelations' | 'deleteRelation' | 'subgraph'>;

/** The request's fields but its node_id, which names the cell as the REST path does. */
function bodyOf(fields: Record<string, unknown>): Record<string, unknown> {
  const { node_id: _nodeId, ...body } = fields;
  return body;
}

export function relationRpcs(facade: MemoryServiceFacade): RelationRpcs {
  return {
    async listRelations(request, context) {
      return messageOf(CellRelationsResponseSchema, await facade.cellRelations(principalOf(context), request.nodeId));
    },
    async addRelations(request, context) {
      const input = parseInput(addRelationsInputSchema, bodyOf(fieldsOf(AddRelationsRequestSchema, request)));
      return messageOf(CellRelationsResponseSchema, await facade.addRelations(principalOf(context), request.nodeId, input));
    },
    async deleteRelation(request, context) {
      const input = parseInput(deleteRelationInputSchema, bodyOf(fieldsOf(DeleteRelationRequestSchema, request)));
      await facade.deleteRelation(principalOf(context), request.nodeId, input);
      return messageOf(DeleteRelationResponseSchema, {});
    },
    async subgraph(request, context) {
      return messageOf(SubgraphResponseSchema, await facade.cellSubgraph(principalOf(context), request.nodeId, bodyOf(fieldsOf(SubgraphRequestSchema, request))));
    },
  };
}
