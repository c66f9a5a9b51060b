/** `/v1/cells/{id}/relations`: read, add and delete the typed relations a cell declares (docs/relations.md). */
import { addRelationsInputSchema, cellRelationsSchema, deleteRelationInputSchema } from '../../core/relation-schemas.js';
import { cellIdParamsSchema } from './path-params.js';
import { defineRoute, type RestRoute } from './rest-route.js';

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
