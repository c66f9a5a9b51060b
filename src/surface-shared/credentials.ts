/**
 * The caller's credential as every surface reads it: the API key in the `x-hyphae-key` header (gRPC
 * metadata of the same name), else an OAuth access token in `Authorization: Bearer` (docs/security.md),
 * resolved by the facade on each call.
 */
import { createHash } from 'node:crypto';
import { bearerTokenOf } from '../auth/oauth/bearer-token.js';
import type { Principal } from '../core/principal.js';
import type { MemoryFacade } from '../service/memory-facade.js';

export const API_KEY_HEADER = 'x-hyphae-key';
export const AUTHORIZATION_HEADER = 'authorization';
/** Longer values are refused before any lookup: no key is that long. */
export const MAX_API_KEY_CHARS = 512;

export type Credential = { readonly kind: 'api-key'; readonly key: string } | { readonly kind: 'bearer'; readonly token: string };

type HeaderValue = string | readonly string[] | null | undefined;

/** The key a header value carries, trimmed; undefined when absent, empty, repeated or too long. */
export function apiKeyOf(value: HeaderValue): string | undefined {
  if (typeof value !== 'string') return undefined;
  const key = value.trim();
  return key === '' || key.length > MAX_API_KEY_CHARS ? undefined : key;
}

/** The `x-hyphae-key` value when there is one, else the bearer token of the `authorization` value. */
export function credentialOf(apiKeyHeader: HeaderValue, authorizationHeader: HeaderValue): Credential | undefined {
  const key = apiKeyOf(apiKeyHeader);
  if (key !== undefined) return { kind: 'api-key', key };
  const token = typeof authorizationHeader === 'string' ? bearerTokenOf(authorizationHeader) : undefined;
  return token === undefined ? undefined : { kind: 'bearer', token };
}

/** A credential as rate limiters hold it: hashed, so their memory never holds a clear key or token. */
export function credentialDigest(credential: Credential): string {
  return createHash('sha256')
    .update(credential.kind === 'api-key' ? credential.key : credential.token)
    .digest('base64url')
    .slice(0, 32);
}

export function authenticateCredential(facade: Pick<MemoryFacade, 'authenticate' | 'authenticateBearer'>, credential: Credential): Promise<Principal> {
  return credential.kind === 'api-key' ? facade.authenticate(credential.key) : facade.authenticateBearer(credential.token);
}
