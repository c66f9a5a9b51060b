/**
 * The reader a signed source link makes (surface-shared/source-links.ts), for a request that sends
 * no credential but a `link`: the slice its URL names — path id, project, offset and limit, each
 * required — must be the slice signed. A request with a credential is authenticated as usual.
 */
import type { FastifyRequest } from 'fastify';
import { UnauthenticatedError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import { API_KEY_HEADER, AUTHORIZATION_HEADER, credentialOf, type SourceLinkKey } from '../../surface-shared/index.js';

const single = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export function linkReader(key: SourceLinkKey, request: FastifyRequest): Principal | undefined {
  if (credentialOf(request.headers[API_KEY_HEADER], request.headers[AUTHORIZATION_HEADER]) !== undefined) return undefined;
  const query = request.query as Record<string, unknown>;
  const link = single(query.link);
  if (link === undefined) return undefined;
  const params = request.params as Record<string, unknown>;
  const [sourceId, project, offset, limit] = [single(params.id), single(query.project), single(query.offset), single(query.limit)];
  if (sourceId === undefined || project === undefined || offset === undefined || limit === undefined || !/^\d{1,10}$/.test(offset) || !/^\d{1,10}$/.test(limit)) {
    throw new UnauthenticatedError('a signed link names its project, offset and limit');
  }
  return key.reader(link, { sourceId, project, offset: Number(offset), limit: Number(limit) });
}
