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
  // Each request's principal, resolved from the headers before the body is read.
  const early = new WeakMap<FastifyRequest, Principal>();
  for (const route of routes) {
    const { params, query, body } = route.schemas;
    const queryKinds = query === undefined ? new Map() : queryScalarKinds(query);
    app.route({
      method: route.method,
      url: route.url,
      ...(route.bodyLimitBytes === undefined ? {} : { bodyLimit: route.bodyLimitBytes }),
      // Who is asking is settled from the headers before the body is read: an anonymous or refused caller's body is never parsed.
      preParsing: async (request: FastifyRequest, reply, payload) => {
        await emptyBodyIsNoBody(request);
        try {
          const linked = route.acceptsSourceLink === true && sourceLinks !== undefined ? linkReader(sourceLinks, request) : undefined;
          const principal = linked ?? (await authenticateRequest(facade, request));
          if (route.bodyLimitBytes !== undefined) authorizeOperation(principal, route.operationId);
          early.set(request, principal);
        } catch (error) {
          // A refused large body ends the connection unread.
          if (route.bodyLimitBytes !== undefined) void reply.header('connection', 'close');
          throw error;
        }
        return payload;
      },
      handler: async (request, reply) => {
        // Authenticated before parsing: an anonymous caller learns nothing, not even which fields are wrong.
        const principal = early.get(request) ?? (await authenticateRequest(facade, request));
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
