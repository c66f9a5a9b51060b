/**
 * The HTTP port as an OAuth protected resource (docs/security.md): the RFC 9728 metadata documents
 * a client discovers the authorization server from, and the `WWW-Authenticate` challenge on every
 * 401 of every route (REST, /mcp, A2A) and on a 403 that a bearer caller's scopes caused; a refused
 * token is logged with why (a fixed phrase, never the token or its claims), since a misconfigured
 * identity provider shows first as every sign-in refused. Installed only with OAuth configured.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { OAuthConfig } from '../core/oauth-config.js';
import { API_KEY_HEADER, AUTHORIZATION_HEADER, OAuthChallenges, PROTECTED_RESOURCE_PATHS, credentialOf, protectedResourceMetadata, refusalOf, tokenRefusalReason } from '../surface-shared/index.js';
import { METRICS_OPERATION } from './metrics-route.js';
import type { PlainOperation } from './openapi-document.js';

export const PROTECTED_RESOURCE_OPERATIONS: readonly PlainOperation[] = PROTECTED_RESOURCE_PATHS.map(({ path, resourcePath }) => ({
  method: 'GET',
  url: path,
  operationId: resourcePath === '' ? 'protectedResourceMetadata' : 'mcpProtectedResourceMetadata',
  summary: `OAuth protected-resource metadata (RFC 9728) of ${resourcePath === '' ? 'this server' : 'the MCP endpoint'}: the authorization server and scopes`,
  tag: 'operations',
  responses: { 200: { description: 'The metadata document' } },
}));

/** Authenticated (or refused) by a token: a key, when both are sent, is what counted. */
function presentsBearer(request: FastifyRequest): boolean {
  return credentialOf(request.headers[API_KEY_HEADER], request.headers[AUTHORIZATION_HEADER])?.kind === 'bearer';
}

export function installOAuthResource(app: FastifyInstance, oauth: OAuthConfig): void {
  for (const { path, resourcePath } of PROTECTED_RESOURCE_PATHS) {
    const document = protectedResourceMetadata(oauth, resourcePath);
    app.get(path, async () => document);
  }
  const challenges = new OAuthChallenges(oauth);
  app.addHook('onSend', async (request, reply, payload) => {
    // The metrics token is a bearer token of its own, not an OAuth one.
    if (request.routeOptions.url === METRICS_OPERATION.url) return payload;
    if (reply.statusCode === 401) {
      const refusal = refusalOf(request);
      const reason = tokenRefusalReason(refusal);
      if (reason !== undefined) request.log.info({ reason }, 'access token refused');
      reply.header('www-authenticate', challenges.unauthorized(refusal));
    } else if (reply.statusCode === 403 && presentsBearer(request)) {
      const challenge = challenges.forbidden(refusalOf(request));
      if (challenge !== undefined) reply.header('www-authenticate', challenge);
    }
    return payload;
  });
}
