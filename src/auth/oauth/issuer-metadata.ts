/**
 * Authorization server metadata discovery: RFC 8414's `/.well-known/oauth-authorization-server`,
 * then OpenID Connect Discovery's `openid-configuration`, in the order MCP clients try them.
 * The document must name exactly the configured issuer, and every URL in it that Hyphae calls
 * must be https (http only on loopback), so a token never leaves for an address in clear.
 */
import { z } from 'zod';
import { UnavailableError } from '../../core/errors.js';
import { isSecureOrLoopbackUrl } from '../../core/secure-url.js';

export interface IssuerMetadata {
  readonly issuer: string;
  readonly jwksUri: string;
  readonly introspectionEndpoint: string | undefined;
  /** Where a browser client (the console) sends its user to sign in, and trades the code for a token. */
  readonly authorizationEndpoint: string | undefined;
  readonly tokenEndpoint: string | undefined;
  /** Every JWS algorithm the server says it signs its own tokens and responses with. */
  readonly signingAlgorithms: readonly string[];
}

export interface MetadataFetchOptions {
  readonly fetch?: typeof fetch;
  readonly timeoutMs?: number;
}

export const DEFAULT_FETCH_TIMEOUT_MS = 5_000;
/** Metadata documents are a few KiB; anything far larger is not one. */
const MAX_METADATA_CHARS = 512 * 1024;

const metadataSchema = z.looseObject({
  issuer: z.string(),
  jwks_uri: z.string(),
  introspection_endpoint: z.string().optional(),
  authorization_endpoint: z.string().optional(),
  token_endpoint: z.string().optional(),
});

/** The discovery URLs for an issuer, most specific first (RFC 8414 §3.1, OpenID Connect Discovery §4). */
export function metadataUrlsFor(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  const at = (wellKnown: string): string => `${url.origin}/.well-known/${wellKnown}${path}`;
  if (path === '') return [at('oauth-authorization-server'), at('openid-configuration')];
  return [at('oauth-authorization-server'), at('openid-configuration'), `${url.origin}${path}/.well-known/openid-configuration`];
}

export async function discoverIssuerMetadata(issuer: string, options: MetadataFetchOptions = {}): Promise<IssuerMetadata> {
  for (const url of metadataUrlsFor(issuer)) {
    const document = await fetchJson(url, options);
    if (document !== undefined) return parseMetadata(issuer, document);
  }
  throw new UnavailableError('the authorization server publishes no metadata at its well-known addresses');
}

/** The JSON body of a 2xx answer; undefined for any other status (try the next address). */
async function fetchJson(url: string, options: MetadataFetchOptions): Promise<unknown> {
  let response: Response;
  try {
    response = await (options.fetch ?? fetch)(url, {
      headers: { accept: 'application/json' },
      redirect: 'error',
      signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS),
    });
  } catch (error) {
    throw new UnavailableError('the authorization server could not be reached', { cause: error });
  }
  if (!response.ok) {
    await response.body?.cancel();
    return undefined;
  }
  const text = await response.text();
  if (text.length > MAX_METADATA_CHARS) throw new UnavailableError('the authorization server metadata is too large');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UnavailableError('the authorization server metadata is not JSON', { cause: error });
  }
}

function parseMetadata(issuer: string, document: unknown): IssuerMetadata {
  const parsed = metadataSchema.safeParse(document);
  if (!parsed.success) throw new UnavailableError('the authorization server metadata lacks issuer or jwks_uri');
  const metadata = parsed.data;
  // RFC 8414 §3.3: a document naming another issuer must not be used (it could be an impostor's).
  if (metadata.issuer !== issuer) throw new UnavailableError('the authorization server metadata names another issuer than HYPHAE_OAUTH_ISSUER');
  if (!isSecureOrLoopbackUrl(metadata.jwks_uri)) throw new UnavailableError('the authorization server jwks_uri is not https');
  const introspection = metadata.introspection_endpoint;
  if (introspection !== undefined && !isSecureOrLoopbackUrl(introspection)) {
    throw new UnavailableError('the authorization server introspection_endpoint is not https');
  }
  for (const [field, value] of [['authorization_endpoint', metadata.authorization_endpoint], ['token_endpoint', metadata.token_endpoint]] as const) {
    if (value !== undefined && !isSecureOrLoopbackUrl(value)) throw new UnavailableError(`the authorization server ${field} is not https`);
  }
  return {
    issuer: metadata.issuer,
    jwksUri: metadata.jwks_uri,
    introspectionEndpoint: introspection,
    authorizationEndpoint: metadata.authorization_endpoint,
    tokenEndpoint: metadata.token_endpoint,
    signingAlgorithms: advertisedSigningAlgorithms(metadata),
  };
}

/** Fields naming what the server itself signs; the `*_auth_*`, request object and DPoP ones are the client's. */
const SERVER_SIGNING_FIELDS = [
  'id_token_signing_alg_values_supported',
  'userinfo_signing_alg_values_supported',
  'introspection_signing_alg_values_supported',
  'authorization_signing_alg_values_supported',
] as const;

function advertisedSigningAlgorithms(metadata: Readonly<Record<string, unknown>>): string[] {
  const algorithms = new Set<string>();
  for (const field of SERVER_SIGNING_FIELDS) {
    const value = metadata[field];
    if (Array.isArray(value)) for (const alg of value) if (typeof alg === 'string') algorithms.add(alg);
  }
  return [...algorithms];
}
