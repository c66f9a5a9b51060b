/**
 * What an HTTP surface tells an OAuth client it refuses (RFC 6750 §3, RFC 9728 §5.1): every 401
 * carries `WWW-Authenticate: Bearer resource_metadata=…`, with `error="invalid_token"` when a token
 * was refused; a 403 to a bearer caller whose scopes lack what the call needs carries
 * `error="insufficient_scope"` and the scope, so the client can ask for it. The surface that
 * refused records why (rememberRefusal); the HTTP app writes the header from that.
 */
import { SCOPE_BY_ROLE } from '../auth/oauth/hyphae-scopes.js';
import { InsufficientScopeError, InvalidTokenError } from '../auth/oauth/oauth-errors.js';
import { bearerChallenge } from '../auth/oauth/protected-resource.js';
import { ROLES, type Role } from '../core/cell-types.js';
import { isHyphaeError } from '../core/errors.js';
import type { OAuthConfig } from '../core/oauth-config.js';

const refusals = new WeakMap<object, unknown>();

/** Keeps why a request was refused, for the challenge its response carries. */
export function rememberRefusal(request: object, error: unknown): void {
  refusals.set(request, error);
}

export function refusalOf(request: object): unknown {
  return refusals.get(request);
}

/** Why a token was refused (a fixed phrase, safe to log), or undefined when no token was refused. */
export function tokenRefusalReason(refusal: unknown): string | undefined {
  return refusal instanceof InvalidTokenError ? refusal.message : undefined;
}

/** A FORBIDDEN for a missing role (details.required_role) as the scope that grants it. */
export function scopeRefusalOf(error: unknown): InsufficientScopeError | undefined {
  if (error instanceof InsufficientScopeError) return error;
  if (!isHyphaeError(error) || error.code !== 'FORBIDDEN') return undefined;
  const role = error.details?.required_role;
  return ROLES.includes(role as Role) ? new InsufficientScopeError([SCOPE_BY_ROLE[role as Role]]) : undefined;
}

export class OAuthChallenges {
  constructor(private readonly config: Pick<OAuthConfig, 'resource'>) {}

  /** For a 401: a refused token is named invalid; a missing or other credential gets the bare challenge. */
  unauthorized(refusal: unknown): string {
    return bearerChallenge(this.config, refusal instanceof InvalidTokenError ? refusal : undefined);
  }

  /** For a 403 to a bearer caller: the insufficient_scope challenge, or undefined when scopes are not why. */
  forbidden(refusal: unknown): string | undefined {
    const scope = scopeRefusalOf(refusal);
    return scope === undefined ? undefined : bearerChallenge(this.config, scope);
  }
}
