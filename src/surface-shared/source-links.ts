/**
 * Signed links to one slice of one source (hydradb_inspect's `url` mode, docs/coming-from-hydradb.md):
 * `GET /v1/sources/{id}?project=P&offset=O&limit=L&link=T`, where T carries the tenant, the agent
 * that asked, the slice and an expiry, signed with HMAC-SHA256 (node:crypto) under the server's
 * secret (HYPHAE_HYDRADB_LINK_SECRET; every replica needs the same). The REST slice route reads
 * with it and no key, as a reader of that project, and only when the URL names exactly the slice
 * signed: any other id, project, offset or limit, a changed token or an expired one is refused.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { UnauthenticatedError } from '../core/errors.js';
import type { Principal } from '../core/principal.js';

export interface SourceSlice {
  readonly project: string;
  readonly sourceId: string;
  readonly offset: number;
  readonly limit: number;
}

interface LinkClaims extends SourceSlice {
  readonly tenantId: string;
  readonly agent: string;
  /** Seconds since the epoch. */
  readonly expires: number;
}

export interface SourceLinkKey {
  /** The link's URL under `origin`, valid `seconds` from now, and when it expires. */
  url(origin: string, principal: Principal, slice: SourceSlice, seconds: number): { readonly url: string; readonly expires_at: string };
  /** The reader a link makes for the slice the URL names; UNAUTHENTICATED for any other slice, a bad signature or an expired link. */
  reader(link: string, named: SourceSlice): Principal;
}

const REFUSED = 'the link is not valid for this slice, or has expired: ask hydradb_inspect for a new one';

export function createSourceLinkKey(secret: string | undefined, now: () => number = Date.now): SourceLinkKey {
  const key = secret === undefined ? randomBytes(32) : Buffer.from(secret, 'utf8');
  const sign = (payload: string): Buffer => createHmac('sha256', key).update(payload).digest();
  return {
    url(origin, principal, slice, seconds) {
      const expires = Math.floor(now() / 1000) + seconds;
      const claims: LinkClaims = { tenantId: principal.tenantId, agent: principal.agent, ...slice, expires };
      const payload = Buffer.from(JSON.stringify(claims), 'utf8').toString('base64url');
      const token = `${payload}.${sign(payload).toString('base64url')}`;
      const url = new URL(`/v1/sources/${encodeURIComponent(slice.sourceId)}`, origin);
      for (const [name, value] of [['project', slice.project], ['offset', String(slice.offset)], ['limit', String(slice.limit)], ['link', token]] as const) url.searchParams.set(name, value);
      return { url: url.href, expires_at: new Date(expires * 1000).toISOString() };
    },
    reader(link, named) {
      const [payload, signature, extra] = link.split('.');
      if (payload === undefined || signature === undefined || extra !== undefined) throw new UnauthenticatedError(REFUSED);
      const expected = sign(payload);
      const given = Buffer.from(signature, 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new UnauthenticatedError(REFUSED);
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as LinkClaims;
      const same = claims.sourceId === named.sourceId && claims.project === named.project && claims.offset === named.offset && claims.limit === named.limit;
      if (!same || claims.expires * 1000 <= now()) throw new UnauthenticatedError(REFUSED);
      // A reader of that one project, for this request only: the facade still checks the role, the tenant and the project.
      return { tenantId: claims.tenantId, agent: claims.agent, keyId: 'source-link', roles: ['reader'], projects: [claims.project], defaultProject: claims.project, trust: 0 };
    },
  };
}
