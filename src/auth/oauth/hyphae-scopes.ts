/** The OAuth scopes Hyphae understands, one per role: what a token may do is what its scopes grant. */
import type { Role } from '../../core/cell-types.js';

export const SCOPE_BY_ROLE: Readonly<Record<Role, string>> = {
  reader: 'hyphae:read',
  writer: 'hyphae:write',
  admin: 'hyphae:admin',
};

/** Advertised in the protected-resource metadata, weakest first. */
export const SUPPORTED_SCOPES: readonly string[] = [SCOPE_BY_ROLE.reader, SCOPE_BY_ROLE.writer, SCOPE_BY_ROLE.admin];

/** What an agent's ordinary work needs; the scope a 401 challenge asks for. */
export const AGENT_SCOPES: readonly string[] = [SCOPE_BY_ROLE.reader, SCOPE_BY_ROLE.writer];

/** The roles a token's scopes grant; scopes of other resources are ignored. */
export function rolesFromScopes(scopes: readonly string[]): Role[] {
  return (Object.entries(SCOPE_BY_ROLE) as [Role, string][]).filter(([, scope]) => scopes.includes(scope)).map(([role]) => role);
}

/**
 * The scopes a token carries: RFC 9068's space-separated `scope`, or the `scp` array some
 * identity providers send instead.
 */
export function scopesOfClaims(claims: Readonly<Record<string, unknown>>): string[] {
  const { scope, scp } = claims;
  if (typeof scope === 'string') return scope.split(' ').filter((item) => item.length > 0);
  if (typeof scp === 'string') return scp.split(' ').filter((item) => item.length > 0);
  if (Array.isArray(scp)) return scp.filter((item): item is string => typeof item === 'string');
  return [];
}
