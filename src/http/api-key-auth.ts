/** Who is calling: the `x-hyphae-key` header, resolved by the facade on every request. */
import type { FastifyRequest } from 'fastify';
import { UnauthenticatedError } from '../core/errors.js';
import type { Principal } from '../core/principal.js';
import type { MemoryFacade } from '../service/memory-facade.js';

export const API_KEY_HEADER = 'x-hyphae-key';
const MAX_KEY_LENGTH = 512;

export function apiKeyOf(request: FastifyRequest): string | undefined {
  const value = request.headers[API_KEY_HEADER];
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_KEY_LENGTH ? value : undefined;
}

export async function authenticateRequest(facade: MemoryFacade, request: FastifyRequest): Promise<Principal> {
  const key = apiKeyOf(request);
  if (key === undefined) throw new UnauthenticatedError(`missing or invalid ${API_KEY_HEADER} header`);
  return facade.authenticate(key);
}
