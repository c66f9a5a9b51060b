/**
 * Who calls /mcp: each request is authenticated on its own from an API key (`x-hyphae-key` or
 * `Authorization: Bearer hy_…`) or an OAuth access token, before its body is read. The principal is kept for the route; an `MCP-Protocol-Version` naming no handshake revision
 * is refused at once on GET, and on POST only once the body shows it is no stateless request.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../../core/principal.js';
import type { MemoryFacade } from '../../service/memory-facade.js';
import { API_KEY_HEADER, AUTHORIZATION_HEADER, acceptsAccessTokens, authenticateCredential, credentialOf, missingCredentialError } from '../../surface-shared/index.js';
import { isStatelessProtocolVersion, isSupportedProtocolVersion } from '../protocol/protocol-version.js';
import { headerValue, refuseVersionHeader, sendFacadeError } from './http-replies.js';
import { HYDRADB_API_KEY_HEADER } from './hydradb-request.js';

const principals = new WeakMap<FastifyRequest, Principal>();
/** Requests authenticated by an OAuth access token rather than a key. */
const byToken = new WeakSet<FastifyRequest>();
/** POSTs whose MCP-Protocol-Version names no handshake revision: refused unless the body is a stateless request. */
const unknownVersionHeader = new WeakSet<FastifyRequest>();

/** The principal authenticated for this /mcp request. */
export function mcpPrincipalOf(request: FastifyRequest): Principal | undefined {
  return principals.get(request);
}

/** Whether the request was authenticated by an OAuth access token. */
export function authenticatedByToken(request: FastifyRequest): boolean {
  return byToken.has(request);
}

/** Whether a POST's version header names neither a handshake revision nor the stateless one. */
export function refusesVersionHeader(request: FastifyRequest): boolean {
  return unknownVersionHeader.has(request) && !isStatelessProtocolVersion(headerValue(request, 'mcp-protocol-version'));
}

/** The onRequest hook of an /mcp route; `deferVersionCheck` on POST, whose revision the body may decide. */
export function mcpAuthentication(facade: Pick<MemoryFacade, 'authenticate' | 'authenticateBearer'>, deferVersionCheck: boolean) {
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    // HydraDB clients may send their key as X-HydraDB-Api-Key; Hyphae's own header comes first.
    const credential = credentialOf(request.headers[API_KEY_HEADER] ?? request.headers[HYDRADB_API_KEY_HEADER], request.headers[AUTHORIZATION_HEADER]);
    if (credential === undefined) {
      await sendFacadeError(reply, missingCredentialError(acceptsAccessTokens(request)));
      return;
    }
    try {
      principals.set(request, await authenticateCredential(facade, credential));
      if (credential.kind === 'bearer') byToken.add(request);
    } catch (error) {
      await sendFacadeError(reply, error);
      return;
    }
    const version = headerValue(request, 'mcp-protocol-version');
    if (version !== undefined && !isSupportedProtocolVersion(version)) {
      if (deferVersionCheck) unknownVersionHeader.add(request);
      else await refuseVersionHeader(reply);
    }
  };
}
