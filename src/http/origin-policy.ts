/**
 * Browser origins (docs/security.md): a request carrying an `Origin` that is not listed is refused
 * with 403 (a request without one comes from a non-browser client and passes); CORS answers only
 * for listed origins, so with no list it stays closed.
 */
import { API_KEY_HEADER } from '../surface-shared/index.js';

export const CORS_ALLOWED_METHODS = 'GET, POST, DELETE, OPTIONS';
export const CORS_ALLOWED_HEADERS = [
  'content-type',
  'accept',
  API_KEY_HEADER,
  // An API key may be sent as `Authorization: Bearer hy_…`, and an access token with OAuth on.
  'authorization',
  'x-request-id',
  'mcp-protocol-version',
  'mcp-session-id',
  'last-event-id',
].join(', ');
/** Response headers a browser MCP or REST client must be able to read. */
export const CORS_EXPOSED_HEADERS = [
  'mcp-session-id',
  'mcp-protocol-version',
  'x-request-id',
  'retry-after',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
].join(', ');
export const CORS_MAX_AGE_SECONDS = 600;

/** Canonical `scheme://host[:port]` of an origin (default ports dropped); null when not an origin. */
export function normaliseOrigin(origin: string): string | null {
  try {
    const url = new URL(origin);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.origin.toLowerCase();
  } catch {
    return null;
  }
}

/**
 * Same-origin (docs/security.md): the browser origin names the very host the request was sent to,
 * with the default port of its scheme folded in. Callers check the Host allowlist first, so a rebound name
 * (DNS rebinding: `Host: evil.example` with `Origin: http://evil.example`) never gets this far.
 */
export function isSameOrigin(origin: string, requestHost: string): boolean {
  try {
    const url = new URL(origin);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    return url.host.toLowerCase() === new URL(`${url.protocol}//${requestHost}`).host.toLowerCase();
  } catch {
    return false;
  }
}

export function createOriginAllowlist(allowedOrigins: readonly string[]): (origin: string) => boolean {
  const allowed = new Set(
    allowedOrigins.map((origin) => normaliseOrigin(origin.trim())).filter((origin): origin is string => origin !== null),
  );
  return (origin) => {
    const normalised = normaliseOrigin(origin);
    return normalised !== null && allowed.has(normalised);
  };
}
