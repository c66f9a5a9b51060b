/** The token of an `Authorization: Bearer …` header (RFC 6750 §2.1); undefined for any other value. */
import { MAX_ACCESS_TOKEN_CHARS } from './access-token-verifier.js';

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

export function bearerTokenOf(authorization: string | undefined): string | undefined {
  if (authorization === undefined || authorization.length > MAX_ACCESS_TOKEN_CHARS + 16) return undefined;
  return BEARER.exec(authorization)?.[1];
}
