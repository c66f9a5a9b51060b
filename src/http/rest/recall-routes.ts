/** `/v1/recall` and `/v1/query`: the MCP tools' bodies, answered with hydrated nodes. */
import type { RecallResult } from '../../core/entities.js';
import { recallNodesResultSchema } from '../../core/output-schemas.js';
import { queryInputSchema, recallInputSchema } from '../../core/schemas.js';
import { UnavailableError } from '../../core/errors.js';
import { defineRoute, type RestRoute } from './rest-route.js';

interface HydratedHits {
  readonly results: readonly { node: unknown; distance: number }[];
}

function hydratedHits(result: RecallResult): HydratedHits {
  return {
    results: result.results.map((hit) => {
      // The facade was asked for nodes; a hit without one is a facade bug, not a client error.
      if (hit.node === undefined) throw new UnavailableError('recall returned a hit without its node');
      return { node: hit.node, distance: hit.distance };
    }),
  };
}

export const recallRoutes: readonly RestRoute[] = [
  defineRoute({
    method: 'POST',
    url: '/v1/recall',
    operationId: 'recall',
    summary: 'The k nearest L0 nodes in your current project (same body as the MCP recall tool)',
    tag: 'recall',
    schemas: { body: recallInputSchema },
    success: { status: 200, description: 'Nearest nodes, closest first', schema: recallNodesResultSchema },
    errors: ['NOT_FOUND'],
    async handle(facade, { principal, body }) {
      return { status: 200, payload: hydratedHits(await facade.recall(principal, body, { withNodes: true })) };
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/v1/query',
    operationId: 'query',
    summary: 'Like recall, at an explicit layer (same body as the MCP query tool)',
    tag: 'recall',
    schemas: { body: queryInputSchema },
    success: { status: 200, description: 'Nearest nodes, closest first', schema: recallNodesResultSchema },
    errors: ['NOT_FOUND'],
    async handle(facade, { principal, body }) {
      return { status: 200, payload: hydratedHits(await facade.query(principal, body, { withNodes: true })) };
    },
  }),
];
