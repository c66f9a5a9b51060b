/** Who is calling: the `x-hyphae-key` header, resolved by the facade on every request. */
import type { FastifyRequest } from 'fastify';
import { UnauthenticatedError } from '../core/errors.js';
import type { Principal } from '../core/principal.js';
import type { MemoryFacade } from '../service/memory-facade.js';
import { API_KEY_HEADER, apiKeyOf } from '../surface-shared/index.js';

export async function authenticateRequest(facade: MemoryFacade, request: FastifyRequest): Promise<Principal> {
  const key = apiKeyOf(request.headers[API_KEY_HEADER]);
  if (key === undefined) throw new UnauthenticatedError(`missing or invalid ${API_KEY_HEADER} header`);
  return facade.authenticate(key);
}
