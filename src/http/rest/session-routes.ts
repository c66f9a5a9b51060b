/** `/v1/sessions`: open a working session (and its scene), close it. */
import { sessionClosedSchema, sessionOpenedSchema } from '../../core/output-schemas.js';
import { openSessionInputSchema } from '../../core/schemas.js';
import { sessionIdParamsSchema } from './path-params.js';
import { defineRoute, type RestRoute } from './rest-route.js';

export const sessionRoutes: readonly RestRoute[] = [
  defineRoute({
    method: 'POST',
    url: '/v1/sessions',
    operationId: 'openSession',
    summary: 'Open a working session in a project; it becomes your current project',
    tag: 'sessions',
    schemas: { body: openSessionInputSchema },
    success: { status: 201, description: 'The session and the scene it created', schema: sessionOpenedSchema },
    errors: [],
    async handle(facade, { principal, body }) {
      return { status: 201, payload: await facade.openSession(principal, body) };
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/v1/sessions/:id/close',
    operationId: 'closeSession',
    summary: 'Close a session (idempotent)',
    tag: 'sessions',
    schemas: { params: sessionIdParamsSchema },
    success: { status: 200, description: 'When the session closed', schema: sessionClosedSchema },
    errors: ['NOT_FOUND'],
    async handle(facade, { principal, params }) {
      return { status: 200, payload: await facade.closeSession(principal, { session_id: params.id }) };
    },
  }),
];
