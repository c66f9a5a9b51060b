/**
 * What a request body over the limit is told, on every HTTP surface: the limit in bytes and the
 * setting that raises it (HYPHAE_BODY_LIMIT_BYTES), or that the route's limit is its own.
 */
import type { FastifyRequest } from 'fastify';
import { HyphaeError } from '../core/errors.js';

export const BODY_LIMIT_SETTING = 'HYPHAE_BODY_LIMIT_BYTES';

/** Fastify's refusal of a body over the limit (its 413), whatever surface's route it reached. */
export function isBodyTooLarge(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'FST_ERR_CTP_BODY_TOO_LARGE';
}

export function bodyTooLargeError(request: FastifyRequest): HyphaeError {
  const serverLimit = request.server.initialConfig.bodyLimit ?? 0;
  const limit = request.routeOptions.bodyLimit ?? serverLimit;
  // A route with a limit of its own (the admin import) is not moved by the setting.
  if (limit !== serverLimit) return new HyphaeError('TOO_LARGE', `request body is larger than this route's limit of ${limit} bytes`, { details: { limit_bytes: limit } });
  return new HyphaeError('TOO_LARGE', `request body is larger than the limit of ${limit} bytes; ${BODY_LIMIT_SETTING} raises it`, {
    details: { limit_bytes: limit, setting: BODY_LIMIT_SETTING },
  });
}
