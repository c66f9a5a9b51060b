/** `/v1/diffs` and `/v1/inbox/drain`: what gossip delivered to the caller. */
import { diffsSinceSchema, drainedInboxSchema } from '../../core/output-schemas.js';
import { drainInboxInputSchema, pullDiffsInputSchema } from '../../core/schemas.js';
import { defineRoute, type RestRoute } from './rest-route.js';

export const diffRoutes: readonly RestRoute[] = [
  defineRoute({
    method: 'GET',
    url: '/v1/diffs',
    operationId: 'pullDiffs',
    summary: 'Diffs gossiped to you since a timestamp',
    tag: 'diffs',
    schemas: { query: pullDiffsInputSchema },
    success: { status: 200, description: 'Diffs, oldest first', schema: diffsSinceSchema },
    errors: [],
    async handle(facade, { principal, query }) {
      return { status: 200, payload: await facade.pullDiffs(principal, query) };
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/v1/inbox/drain',
    operationId: 'drainInbox',
    summary: 'The next page of your inbox; the server owns and advances the cursor',
    tag: 'diffs',
    schemas: { body: drainInboxInputSchema },
    success: { status: 200, description: 'The page drained', schema: drainedInboxSchema },
    errors: [],
    async handle(facade, { principal, body }) {
      return { status: 200, payload: await facade.drainInbox(principal, body) };
    },
  }),
];
