/** `GET /v1/me`: who the calling key is — what a tool (the web console) may show and offer it. */
import { identitySchema } from '../../core/console-schemas.js';
import { defineRoute, type RestRoute } from './rest-route.js';

export const identityRoutes: readonly RestRoute[] = [
  defineRoute({
    method: 'GET',
    url: '/v1/me',
    operationId: 'whoAmI',
    summary: 'The calling key: tenant, agent, roles, project scope, default project, trust',
    tag: 'identity',
    schemas: {},
    success: { status: 200, description: 'The caller', schema: identitySchema },
    errors: [],
    async handle(facade, { principal }) {
      return { status: 200, payload: await facade.whoAmI(principal) };
    },
  }),
];
