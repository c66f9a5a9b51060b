/** Why a bearer token is refused, in the terms of RFC 6750's `WWW-Authenticate` error codes. */
import { ForbiddenError, UnauthenticatedError } from '../../core/errors.js';

/** 401 `invalid_token`: expired, not ours, not signed by the issuer, inactive, or malformed. */
export class InvalidTokenError extends UnauthenticatedError {
  readonly oauthError = 'invalid_token';
  constructor(reason: string, options: { readonly cause?: unknown } = {}) {
    super(`invalid access token: ${reason}`, options);
  }
}

/** 403 `insufficient_scope`: a valid token whose scopes grant none of what the call needs. */
export class InsufficientScopeError extends ForbiddenError {
  readonly oauthError = 'insufficient_scope';
  readonly requiredScopes: readonly string[];
  constructor(requiredScopes: readonly string[]) {
    super(`the access token lacks the scope ${requiredScopes.join(' or ')}`, { details: { required_scopes: requiredScopes } });
    this.requiredScopes = requiredScopes;
  }
}
