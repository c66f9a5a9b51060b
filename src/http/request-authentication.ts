/** Who is calling: the `x-hyphae-key` header or an OAuth bearer token, resolved by the facade on every request. */
import type { FastifyRequest } from 'fastify';
import { UnauthenticatedError } from '../core/errors.js';
import type { Principal } from '../core/principal.js';
import type { MemoryFacade } from '../service/memory-facade.js';
import { API_KEY_HEADER, AUTHORIZATION_HEADER, authenticateCredential, credentialOf } from '../surface-shared/index.js';

export async function authenticateRequest(facade: MemoryFacade, request: FastifyRequest): Promise<Principal> {
  const credential = credentialOf(request.headers[API_KEY_HEADER], request.headers[AUTHORIZATION_HEADER]);
  if (credential === undefined) throw new UnauthenticatedError(`missing or invalid ${API_KEY_HEADER} header`);
  return authenticateCredential(facade, credential);
}
