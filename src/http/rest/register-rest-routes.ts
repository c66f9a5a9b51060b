/** Mounts the `/v1` route definitions on fastify: authenticate, validate with zod, call the facade. */
import type { FastifyInstance } from 'fastify';
import type { MemoryFacade } from '../../service/memory-facade.js';
import { authenticateRequest } from '../request-authentication.js';
import { coerceQuery, parseRequestPart, queryScalarKinds } from './request-validation.js';
import type { RestRoute } from './rest-route.js';

export function registerRestRoutes(app: FastifyInstance, facade: MemoryFacade, routes: readonly RestRoute[]): void {
  for (const route of routes) {
    const { params, query, body } = route.schemas;
    const queryKinds = query === undefined ? new Map() : queryScalarKinds(query);
    app.route({
      method: route.method,
      url: route.url,
      ...(route.bodyLimitBytes === undefined ? {} : { bodyLimit: route.bodyLimitBytes }),
      handler: async (request, reply) => {
        // Authentication first: an anonymous caller learns nothing, not even which fields are wrong.
        const principal = await authenticateRequest(facade, request);
        const input = {
          principal,
          params: params === undefined ? undefined : parseRequestPart(params, 'params', request.params),
          query: query === undefined ? undefined : parseRequestPart(query, 'query', coerceQuery(request.query, queryKinds)),
          // A POST without a body validates as `{}`, so routes whose fields all default need none.
          body: body === undefined ? undefined : parseRequestPart(body, 'body', request.body ?? {}),
        };
        const result = await route.handle(facade, input);
        reply.code(result.status);
        return result.status === 204 ? reply.send() : reply.send(result.payload);
      },
    });
  }
}
