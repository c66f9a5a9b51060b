/** Who is calling: an API key (`x-hyphae-key` or `Authorization: Bearer hy_…`) or an OAuth access token, resolved by the facade on every request. */
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../core/principal.js';
import type { MemoryFacade } from '../service/memory-facade.js';
import { API_KEY_HEADER, AUTHORIZATION_HEADER, acceptsAccessTokens, authenticateCredential, credentialOf, missingCredentialError } from '../surface-shared/index.js';

export async function authenticateRequest(facade: MemoryFacade, request: FastifyRequest): Promise<Principal> {
  const credential = credentialOf(request.headers[API_KEY_HEADER], request.headers[AUTHORIZATION_HEADER]);
  if (credential === undefined) throw missingCredentialError(acceptsAccessTokens(request));
  return authenticateCredential(facade, credential);
}
