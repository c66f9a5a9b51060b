/** `/v1/cells/{id}/relations` and `/subgraph`: the typed relations a cell declares, and what surrounds it (docs/relations.md). */
import { z } from 'zod';
import {
  addRelationsInputSchema,
  cellRelationsSchema,
  deleteRelationInputSchema,
  subgraphDepthSchema,
  subgraphInputSchema,
  subgraphMaxMembersSchema,
  subgraphSchema,
} from '../../core/relation-schemas.js';
import { cellIdParamsSchema } from './path-params.js';
import { defineRoute, type RestRoute } from './rest-route.js';

/** The subgraph's query: the facade's input, with relation_types as one comma-separated value. */
const subgraphQuerySchema = z.strictObject({
  depth: subgraphDepthSchema.optional(),
  max_members: subgraphMaxMembersSchema.optional(),
  relation_types: z.string().min(1).max(2048).optional().describe('Walk only edges of these types, comma-separated (e.g. answers,supersedes)'),
  as_of: subgraphInputSchema.shape.as_of,
});

export const relationRoutes: readonly RestRoute[] = [
  defineRoute({
    method: 'GET',
    url: '/v1/cells/:id/relations',
    operationId: 'getCellRelations',
    summary: 'The relations a cell declares to cells you can read, oldest first',
    tag: 'cells',
    schemas: { params: cellIdParamsSchema },
    success: { status: 200, description: 'The relations', schema: cellRelationsSchema },
    errors: ['NOT_FOUND'],
    async handle(facade, { principal, params }) {
      return { status: 200, payload: await facade.cellRelations(principal, params.id) };
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/v1/cells/:id/subgraph',
    operationId: 'getCellSubgraph',
    summary: 'What surrounds a cell: members reachable over relations and implicit edges, breadth-first, and the edges among them',
    tag: 'cells',
    schemas: { params: cellIdParamsSchema, query: subgraphQuerySchema },
    success: { status: 200, description: 'The subgraph', schema: subgraphSchema },
    errors: ['NOT_FOUND'],
    async handle(facade, { principal, params, query }) {
      const { relation_types: types, ...bounds } = query;
      const input = types === undefined ? bounds : { ...bounds, relation_types: types.split(',') };
      return { status: 200, payload: await facade.cellSubgraph(principal, params.id, input) };
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/v1/cells/:id/relations',
    operationId: 'addCellRelations',
    summary: 'Add typed relations from a cell to cells you can read; one it already declares is kept as it is',
    tag: 'cells',
    schemas: { params: cellIdParamsSchema, body: addRelationsInputSchema },
    success: { status: 201, description: 'Every relation the cell declares, oldest first', schema: cellRelationsSchema },
    errors: ['NOT_FOUND'],
    async handle(facade, { principal, params, body }) {
      return { status: 201, payload: await facade.addRelations(principal, params.id, body) };
    },
  }),
  defineRoute({
    method: 'DELETE',
    url: '/v1/cells/:id/relations',
    operationId: 'deleteCellRelation',
    summary: 'Delete one relation the cell declares, named by to and type',
    tag: 'cells',
    schemas: { params: cellIdParamsSchema, query: deleteRelationInputSchema },
    success: { status: 204, description: 'Deleted' },
    errors: ['NOT_FOUND'],
    async handle(facade, { principal, params, query }) {
      await facade.deleteRelation(principal, params.id, query);
      return { status: 204 };
    },
  }),
];
