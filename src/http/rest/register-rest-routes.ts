/** Mounts the `/v1` route definitions on fastify: authenticate, validate with zod, call the facade. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Principal } from '../../core/principal.js';
import { authorizeOperation } from '../../service/index.js';
import type { MemoryFacade } from '../../service/memory-facade.js';
import { authenticateRequest } from '../request-authentication.js';
import { coerceQuery, parseRequestPart, queryScalarKinds } from './request-validation.js';
import type { RestRoute } from './rest-route.js';
import { linkReader } from './source-link-reader.js';
import type { SourceLinkKey } from '../../surface-shared/index.js';

/** An empty body is no body: a client sending `content-type: application/json` on every call gets the route's answer, not a parse error. */
async function emptyBodyIsNoBody(request: FastifyRequest): Promise<void> {
  const { headers } = request;
  if (headers['transfer-encoding'] === undefined && (headers['content-length'] ?? '0') === '0') delete headers['content-type'];
}

export function registerRestRoutes(app: FastifyInstance, facade: MemoryFacade, routes: readonly RestRoute[], sourceLinks?: SourceLinkKey): void {
  // Principals of routes that take large bodies, resolved from the headers before the body is read.
  const early = new WeakMap<FastifyRequest, Principal>();
  for (const route of routes) {
    const { params, query, body } = route.schemas;
    const queryKinds = query === undefined ? new Map() : queryScalarKinds(query);
    app.route({
      method: route.method,
      url: route.url,
      ...(route.bodyLimitBytes === undefined
        ? { preParsing: emptyBodyIsNoBody }
        : {
            bodyLimit: route.bodyLimitBytes,
            // A large body is read only for a caller the facade lets run the operation; a refusal ends the connection unread.
            preParsing: async (request: FastifyRequest, reply, payload) => {
              await emptyBodyIsNoBody(request);
              try {
                const principal = await authenticateRequest(facade, request);
                authorizeOperation(principal, route.operationId);
                early.set(request, principal);
              } catch (error) {
                void reply.header('connection', 'close');
                throw error;
              }
              return payload;
            },
          }),
      handler: async (request, reply) => {
        // Authentication first: an anonymous caller learns nothing, not even which fields are wrong.
        const linked = route.acceptsSourceLink === true && sourceLinks !== undefined ? linkReader(sourceLinks, request) : undefined;
        const principal = early.get(request) ?? linked ?? (await authenticateRequest(facade, request));
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
