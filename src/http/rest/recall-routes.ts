/** `/v1/recall` and `/v1/query`: the MCP tools' bodies, answered with hydrated nodes. */
import type { RecallResult } from '../../core/entities.js';
import { recallNodesResultSchema } from '../../core/output-schemas.js';
import { queryInputSchema, recallInputSchema, searchProjectFields, validityFields } from '../../core/schemas.js';
import type { ValidityInput } from '../../core/schemas.js';
import { UnavailableError } from '../../core/errors.js';
import { defineRoute, type RestRoute } from './rest-route.js';

interface HydratedHits {
  readonly request_id: string;
  readonly results: readonly { node: unknown; distance: number; score: number }[];
}

function hydratedHits(result: RecallResult): HydratedHits {
  return {
    request_id: result.request_id,
    results: result.results.map((hit) => {
      // The facade was asked for nodes; a hit without one is a facade bug, not a client error.
      if (hit.node === undefined) throw new UnavailableError('recall returned a hit without its node');
      return { node: hit.node, distance: hit.distance, score: hit.score, ...(hit.source === undefined ? {} : { source: hit.source }), ...(hit.related_chunks === undefined ? {} : { related_chunks: hit.related_chunks }), ...(hit.relations === undefined ? {} : { relations: hit.relations }) };
    }),
  };
}

/** REST reads may also ask for superseded versions, a past instant or another project; the MCP tools read current cells of the current project. */
const restRecallBodySchema = recallInputSchema.extend(validityFields).extend(searchProjectFields);
const restQueryBodySchema = queryInputSchema.extend(validityFields).extend(searchProjectFields);

type RestSearchExtras = ValidityInput & { readonly project?: string };

function splitOptions<T extends RestSearchExtras>(body: T): { input: Omit<T, keyof RestSearchExtras>; validity: ValidityInput; project: string | undefined } {
  const { include_superseded, as_of, project, ...input } = body;
  return {
    input,
    validity: { ...(include_superseded === undefined ? {} : { include_superseded }), ...(as_of === undefined ? {} : { as_of }) },
    project,
  };
}

export const recallRoutes: readonly RestRoute[] = [
  defineRoute({
    method: 'POST',
    url: '/v1/recall',
    operationId: 'recall',
    summary: 'The k nearest current L0 nodes in your current project (the MCP recall body, plus include_superseded / as_of, and project to search another project of your scope)',
    tag: 'recall',
    schemas: { body: restRecallBodySchema },
    success: { status: 200, description: 'The best nodes, best first (by score)', schema: recallNodesResultSchema },
    errors: ['NOT_FOUND'],
    async handle(facade, { principal, body }) {
      const { input, validity, project } = splitOptions(body);
      return { status: 200, payload: hydratedHits(await facade.recall(principal, input, { withNodes: true, validity, ...(project === undefined ? {} : { project }) })) };
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/v1/query',
    operationId: 'query',
    summary: 'Like recall, at an explicit layer (the MCP query body, plus include_superseded / as_of / project)',
    tag: 'recall',
    schemas: { body: restQueryBodySchema },
    success: { status: 200, description: 'The best nodes, best first (by score)', schema: recallNodesResultSchema },
    errors: ['NOT_FOUND'],
    async handle(facade, { principal, body }) {
      const { input, validity, project } = splitOptions(body);
      return { status: 200, payload: hydratedHits(await facade.query(principal, input, { withNodes: true, validity, ...(project === undefined ? {} : { project }) })) };
    },
  }),
];
