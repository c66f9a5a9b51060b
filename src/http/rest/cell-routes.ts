/** `/v1/cells`: store, read, list and delete full nodes. */
import { z } from 'zod';
import { cellHistorySchema, cellsPageSchema, forgottenCellsSchema, memoryNodeSchema, storedNodeSchema } from '../../core/output-schemas.js';
import { deleteCellOptionsSchema, erasureReceiptSchema } from '../../core/erasure-schemas.js';
import { forgetCellsInputSchema, listCellsInputSchema, storeInputSchema, validityFields } from '../../core/schemas.js';
import { cellIdParamsSchema } from './path-params.js';
import { defineRoute, type RestRoute } from './rest-route.js';

const cellReadQuerySchema = z.strictObject({ as_of: validityFields.as_of });

export const cellRoutes: readonly RestRoute[] = [
  defineRoute({
    method: 'POST',
    url: '/v1/cells',
    operationId: 'storeCell',
    summary: 'Store a cell (same body as the MCP store tool)',
    tag: 'cells',
    schemas: { body: storeInputSchema },
    success: {
      status: 201,
      description:
        'The stored node; the existing one, reinforced (reinforced: true), when the content restates a current cell of the project and type; the original one when the idempotency key was replayed',
      schema: storedNodeSchema,
    },
    errors: ['NOT_FOUND', 'CONFLICT', 'TOO_LARGE'],
    async handle(facade, { principal, body }) {
      return { status: 201, payload: await facade.store(principal, body) };
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/v1/cells/:id',
    operationId: 'getCell',
    summary: 'Read one node; with as_of, the version of its chain that was current then',
    tag: 'cells',
    schemas: { params: cellIdParamsSchema, query: cellReadQuerySchema },
    success: { status: 200, description: 'The node', schema: memoryNodeSchema },
    errors: ['NOT_FOUND'],
    async handle(facade, { principal, params, query }) {
      return { status: 200, payload: await facade.getCell(principal, params.id, query.as_of === undefined ? {} : { asOf: query.as_of }) };
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/v1/cells/:id/history',
    operationId: 'getCellHistory',
    summary: 'Every version of the node, oldest first: what it superseded and what superseded it',
    tag: 'cells',
    schemas: { params: cellIdParamsSchema },
    success: { status: 200, description: 'The supersession chain and its corroboration records', schema: cellHistorySchema },
    errors: ['NOT_FOUND'],
    async handle(facade, { principal, params }) {
      return { status: 200, payload: await facade.cellHistory(principal, params.id) };
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/v1/cells',
    operationId: 'listCells',
    summary: 'List nodes, newest first, filtered and paginated (current versions unless include_superseded or as_of)',
    tag: 'cells',
    schemas: { query: listCellsInputSchema },
    success: { status: 200, description: 'One page of nodes', schema: cellsPageSchema },
    errors: [],
    async handle(facade, { principal, query }) {
      const page = await facade.listCells(principal, query);
      return { status: 200, payload: { cells: page.items, next_cursor: page.next_cursor } };
    },
  }),
  defineRoute({
    method: 'DELETE',
    url: '/v1/cells/:id',
    operationId: 'deleteCell',
    summary: 'Erase a node (include_history=true: every version of its chain) and every copy of its text; a `deleted` diff without text goes to those who received one; answers the receipt',
    tag: 'cells',
    schemas: { params: cellIdParamsSchema, query: deleteCellOptionsSchema },
    success: { status: 200, description: 'The receipt: copies removed by kind (docs/forgetting.md)', schema: erasureReceiptSchema },
    errors: ['NOT_FOUND'],
    async handle(facade, { principal, params, query }) {
      return { status: 200, payload: await facade.deleteCell(principal, params.id, query) };
    },
  }),
  defineRoute({
    method: 'DELETE',
    url: '/v1/cells',
    operationId: 'forgetCells',
    summary: 'Forget every cell of a scene (scene_id) or from one source (source_ref, optionally source_ref_kind); a `deleted` diff per cell',
    tag: 'cells',
    schemas: { query: forgetCellsInputSchema },
    success: { status: 200, description: 'How many were forgotten; has_more = call again', schema: forgottenCellsSchema },
    errors: [],
    async handle(facade, { principal, query }) {
      return { status: 200, payload: await facade.forgetCells(principal, query) };
    },
  }),
];
