/**
 * The caller's credential as every surface reads it (docs/security.md): an API key in the
 * `x-hyphae-key` header (gRPC metadata of the same name) or in `Authorization: Bearer`, told from
 * an OAuth access token by the key's own `hy_` prefix (no JWT starts so); any other bearer token is
 * an access token. Resolved by the facade on each call.
 */
import { createHash } from 'node:crypto';
import { API_KEY_PREFIX } from '../auth/api-key.js';
import { bearerTokenOf } from '../auth/oauth/bearer-token.js';
import { InvalidTokenError } from '../auth/oauth/oauth-errors.js';
import { UnauthenticatedError } from '../core/errors.js';
import type { Principal } from '../core/principal.js';
import type { MemoryFacade } from '../service/memory-facade.js';

export const API_KEY_HEADER = 'x-hyphae-key';
export const AUTHORIZATION_HEADER = 'authorization';
/** Longer values are refused before any lookup: no key is that long. */
export const MAX_API_KEY_CHARS = 512;
/** The two ways to send a key, as every 401 names them. */
export const API_KEY_FORMS = `send an API key as "${API_KEY_HEADER}: <key>" or "Authorization: Bearer <key>"`;

export type Credential = { readonly kind: 'api-key'; readonly key: string } | { readonly kind: 'bearer'; readonly token: string };

type HeaderValue = string | readonly string[] | null | undefined;

/** The key a header value carries, trimmed; undefined when absent, empty, repeated or too long. */
export function apiKeyOf(value: HeaderValue): string | undefined {
  if (typeof value !== 'string') return undefined;
  const key = value.trim();
  return key === '' || key.length > MAX_API_KEY_CHARS ? undefined : key;
}

/** The `x-hyphae-key` value when there is one, else what `Authorization: Bearer` carries: a key by its prefix, or an access token. */
export function credentialOf(apiKeyHeader: HeaderValue, authorizationHeader: HeaderValue): Credential | undefined {
  const key = apiKeyOf(apiKeyHeader);
  if (key !== undefined) return { kind: 'api-key', key };
  const token = typeof authorizationHeader === 'string' ? bearerTokenOf(authorizationHeader) : undefined;
  if (token === undefined) return undefined;
  if (token.startsWith(API_KEY_PREFIX)) return token.length > MAX_API_KEY_CHARS ? undefined : { kind: 'api-key', key: token };
  return { kind: 'bearer', token };
}

const tokenAccepting = new WeakSet<object>();

/** Marks a request as reaching a server that takes OAuth access tokens (the HTTP app does, with OAuth configured). */
export function markAccessTokensAccepted(request: object): void {
  tokenAccepting.add(request);
}

export function acceptsAccessTokens(request: object): boolean {
  return tokenAccepting.has(request);
}

/** The 401 of a request that carries no usable credential; `acceptsAccessTokens` adds the OAuth form. */
export function missingCredentialError(acceptsAccessTokens = false): UnauthenticatedError {
  const oauth = acceptsAccessTokens ? ', or an OAuth access token as "Authorization: Bearer <token>"' : '';
  return new UnauthenticatedError(`missing credential: ${API_KEY_FORMS}${oauth}`);
}

const JWS_COMPACT = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]*)$/;

/**
 * A credential as rate limiters hold it: hashed, so their memory never holds a clear key or token.
 * A JWT is hashed by the bytes its segments decode to, not by its text: base64url's unused final
 * bits let one token be written several ways, and each spelling must not get a bucket of its own.
 */
export function credentialDigest(credential: Credential): string {
  const hash = createHash('sha256');
  if (credential.kind === 'api-key') hash.update(`key\u0000${credential.key}`);
  else {
    const segments = JWS_COMPACT.exec(credential.token);
    if (segments === null) hash.update(`token\u0000${credential.token}`);
    else for (const segment of segments.slice(1)) hash.update(`jws\u0000${Buffer.from(segment, 'base64url').toString('base64url')}`);
  }
  return hash.digest('base64url').slice(0, 32);
}

/**
 * Resolves a credential to its principal. A non-key bearer token refused without an OAuth reason
 * reached a server that takes no access tokens: the 401 then says how to send a key instead.
 */
export async function authenticateCredential(facade: Pick<MemoryFacade, 'authenticate' | 'authenticateBearer'>, credential: Credential): Promise<Principal> {
  if (credential.kind === 'api-key') return facade.authenticate(credential.key);
  try {
    return await facade.authenticateBearer(credential.token);
  } catch (error) {
    if (error instanceof UnauthenticatedError && !(error instanceof InvalidTokenError)) {
      throw new UnauthenticatedError(`this server accepts no OAuth access tokens: ${API_KEY_FORMS} (API keys start with "${API_KEY_PREFIX}")`, { cause: error });
    }
    throw error;
  }
}
