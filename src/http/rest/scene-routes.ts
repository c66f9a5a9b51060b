/** `/v1/scenes`: list, read with cells, consolidate into an L1 node. */
import { memoryNodeSchema, sceneWithCellsSchema, scenesPageSchema } from '../../core/output-schemas.js';
import { listScenesInputSchema, validityInputSchema } from '../../core/schemas.js';
import { sceneIdParamsSchema } from './path-params.js';
import { defineRoute, type RestRoute } from './rest-route.js';

export const sceneRoutes: readonly RestRoute[] = [
  defineRoute({
    method: 'GET',
    url: '/v1/scenes',
    operationId: 'listScenes',
    summary: 'Scenes in your read scope',
    tag: 'scenes',
    schemas: { query: listScenesInputSchema },
    success: { status: 200, description: 'One page of scenes', schema: scenesPageSchema },
    errors: [],
    async handle(facade, { principal, query }) {
      const page = await facade.listScenes(principal, query);
      return { status: 200, payload: { scenes: page.items, next_cursor: page.next_cursor } };
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/v1/scenes/:id',
    operationId: 'getScene',
    summary: 'One scene with its current cells; include_superseded or as_of for other versions',
    tag: 'scenes',
    schemas: { params: sceneIdParamsSchema, query: validityInputSchema },
    success: { status: 200, description: 'The scene, its cell ids and its full nodes', schema: sceneWithCellsSchema },
    errors: ['NOT_FOUND'],
    async handle(facade, { principal, params, query }) {
      const scene = await facade.getScene(principal, params.id, { withNodes: true, validity: query });
      return { status: 200, payload: { ...scene, cells: scene.cells ?? [] } };
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/v1/scenes/:id/consolidate',
    operationId: 'consolidateScene',
    summary: "Write an L1 node summarising the scene's cells",
    tag: 'scenes',
    schemas: { params: sceneIdParamsSchema },
    success: { status: 201, description: 'The L1 node', schema: memoryNodeSchema },
    errors: ['NOT_FOUND', 'CONFLICT'],
    async handle(facade, { principal, params }) {
      return { status: 201, payload: await facade.consolidateScene(principal, params.id) };
    },
  }),
];
