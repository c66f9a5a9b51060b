/**
 * The OAuth resource-server settings (docs/security.md): which issuer's access tokens are accepted
 * beside API keys, for which audience, and how their claims name a tenant, an agent and projects.
 * Unset HYPHAE_OAUTH_ISSUER: no OAuth at all, API keys only.
 */
import { z } from 'zod';
import { InvalidArgumentError } from './errors.js';
import { createKeyInputSchema } from './schemas.js';
import { isSecureOrLoopbackUrl } from './secure-url.js';

/** In HYPHAE_OAUTH_ALLOWED_TENANTS: any tenant a token names. */
export const ANY_TENANT = '*';

const secureUrl = z.string().refine(isSecureOrLoopbackUrl, 'must be an https URL (http only on loopback)');
const claimName = z.string().min(1).max(256);
const tenantName = createKeyInputSchema.shape.tenant;

/** The OAuth variables of the environment schema (their names are what a user sees in errors). */
export const oauthEnvShape = {
  HYPHAE_PUBLIC_URL: secureUrl.refine(isOrigin, 'must be an origin (scheme, host and port) without path, query or fragment').optional(),
  HYPHAE_OAUTH_ISSUER: secureUrl.optional(),
  HYPHAE_OAUTH_AUDIENCE: z.string().min(1).max(2048).optional(),
  HYPHAE_OAUTH_TENANT_CLAIM: claimName.default('hyphae_tenant'),
  HYPHAE_OAUTH_DEFAULT_TENANT: tenantName.optional(),
  HYPHAE_OAUTH_ALLOWED_TENANTS: z
    .string()
    .transform((value) => value.split(',').map((item) => item.trim()).filter((item) => item.length > 0))
    .pipe(z.array(z.union([tenantName, z.literal(ANY_TENANT)])))
    .optional(),
  HYPHAE_OAUTH_AGENT_CLAIM: claimName.default('sub'),
  HYPHAE_OAUTH_PROJECTS_CLAIM: claimName.optional(),
  HYPHAE_OAUTH_ACCEPT_JWT_TYP: z.enum(['1', '0', 'true', 'false']).optional(),
  HYPHAE_OAUTH_INTROSPECTION_CLIENT_ID: z.string().min(1).max(512).optional(),
  HYPHAE_OAUTH_INTROSPECTION_CLIENT_SECRET: z.string().min(1).max(4096).optional(),
  HYPHAE_CONSOLE_OAUTH_CLIENT_ID: z.string().min(1).max(512).optional(),
  HYPHAE_CONSOLE_OAUTH_SCOPES: z.string().trim().min(1).max(1024).optional(),
};

type OAuthEnv = z.output<z.ZodObject<typeof oauthEnvShape>>;

export interface OAuthIntrospectionClient {
  readonly clientId: string;
  readonly clientSecret: string;
}

export interface OAuthConfig {
  /** The one authorization server whose tokens are accepted (its `iss`). */
  readonly issuer: string;
  /** The canonical URL of this server (HYPHAE_PUBLIC_URL's origin): the protected resource. */
  readonly resource: string;
  /** `aud` values a token may carry: HYPHAE_OAUTH_AUDIENCE alone, else the resource and its `/mcp` endpoint. */
  readonly audiences: readonly string[];
  readonly tenantClaim: string;
  /** The tenant of a token without the tenant claim; undefined: such a token is refused. */
  readonly defaultTenant: string | undefined;
  /** Tenants a token may name; `['*']` is any. */
  readonly allowedTenants: readonly string[];
  readonly agentClaim: string;
  /** A claim listing the token's projects; undefined: every project of the tenant. */
  readonly projectsClaim: string | undefined;
  /** Accept a JWT whatever its `typ` header (for providers that omit RFC 9068's `at+jwt`); false: `at+jwt` only, so no ID token passes. */
  readonly acceptAnyJwtTyp: boolean;
  /** Credentials for RFC 7662 introspection of opaque tokens; undefined: only JWT access tokens. */
  readonly introspection: OAuthIntrospectionClient | undefined;
  /** The web console as a public client of the issuer (sign-in with the identity provider); undefined: keys only. */
  readonly console?: OAuthConsoleClient;
}

export interface OAuthConsoleClient {
  /** The client id the identity provider registered the console under (redirect URI `<public URL>/console/`). */
  readonly clientId: string;
  /** The scopes the console asks for, space-separated. */
  readonly scope: string;
}

/** What the console asks for by default: everything its pages can do; the identity provider grants what the user may have. */
export const CONSOLE_DEFAULT_SCOPE = 'hyphae:read hyphae:write hyphae:admin';

/** The canonical resource URL of HYPHAE_PUBLIC_URL, or undefined when unset. */
export function canonicalPublicUrl(value: string | undefined): string | undefined {
  return value === undefined ? undefined : new URL(value).origin;
}

/** Cross-field rules and defaults; a bad combination stops start-up naming the variable. */
export function resolveOAuthConfig(env: OAuthEnv): OAuthConfig | undefined {
  const resource = canonicalPublicUrl(env.HYPHAE_PUBLIC_URL);
  if (env.HYPHAE_OAUTH_ISSUER === undefined) {
    const stray = OAUTH_ONLY_VARIABLES.find((name) => env[name] !== undefined);
    if (stray !== undefined) throw invalid(stray, 'has no effect without HYPHAE_OAUTH_ISSUER');
    return undefined;
  }
  if (resource === undefined) throw invalid('HYPHAE_PUBLIC_URL', 'is required with HYPHAE_OAUTH_ISSUER (it is the resource tokens are issued for)');
  const allowedTenants = env.HYPHAE_OAUTH_ALLOWED_TENANTS ?? (env.HYPHAE_OAUTH_DEFAULT_TENANT === undefined ? undefined : [env.HYPHAE_OAUTH_DEFAULT_TENANT]);
  if (allowedTenants === undefined || allowedTenants.length === 0) {
    throw invalid('HYPHAE_OAUTH_ALLOWED_TENANTS', `is required with HYPHAE_OAUTH_ISSUER unless HYPHAE_OAUTH_DEFAULT_TENANT is set (list the tenants a token may name, or "${ANY_TENANT}")`);
  }
  const defaultTenant = env.HYPHAE_OAUTH_DEFAULT_TENANT;
  if (defaultTenant !== undefined && !allowedTenants.includes(ANY_TENANT) && !allowedTenants.includes(defaultTenant)) {
    throw invalid('HYPHAE_OAUTH_DEFAULT_TENANT', 'must be one of HYPHAE_OAUTH_ALLOWED_TENANTS');
  }
  const clientId = env.HYPHAE_OAUTH_INTROSPECTION_CLIENT_ID;
  const clientSecret = env.HYPHAE_OAUTH_INTROSPECTION_CLIENT_SECRET;
  if ((clientId === undefined) !== (clientSecret === undefined)) {
    throw invalid(clientId === undefined ? 'HYPHAE_OAUTH_INTROSPECTION_CLIENT_ID' : 'HYPHAE_OAUTH_INTROSPECTION_CLIENT_SECRET', 'is required with its pair (client id and secret for introspection)');
  }
  return {
    issuer: env.HYPHAE_OAUTH_ISSUER,
    resource,
    // A client may send the resource with URL serialisation's trailing slash, or name the /mcp endpoint.
    audiences: env.HYPHAE_OAUTH_AUDIENCE === undefined ? [resource, `${resource}/`, `${resource}/mcp`] : [env.HYPHAE_OAUTH_AUDIENCE],
    tenantClaim: env.HYPHAE_OAUTH_TENANT_CLAIM,
    defaultTenant,
    allowedTenants,
    agentClaim: env.HYPHAE_OAUTH_AGENT_CLAIM,
    projectsClaim: env.HYPHAE_OAUTH_PROJECTS_CLAIM,
    acceptAnyJwtTyp: env.HYPHAE_OAUTH_ACCEPT_JWT_TYP === '1' || env.HYPHAE_OAUTH_ACCEPT_JWT_TYP === 'true',
    introspection: clientId === undefined || clientSecret === undefined ? undefined : { clientId, clientSecret },
    ...(env.HYPHAE_CONSOLE_OAUTH_CLIENT_ID === undefined
      ? {}
      : { console: { clientId: env.HYPHAE_CONSOLE_OAUTH_CLIENT_ID, scope: env.HYPHAE_CONSOLE_OAUTH_SCOPES ?? CONSOLE_DEFAULT_SCOPE } }),
  };
}

const OAUTH_ONLY_VARIABLES = [
  'HYPHAE_OAUTH_AUDIENCE',
  'HYPHAE_OAUTH_DEFAULT_TENANT',
  'HYPHAE_OAUTH_ALLOWED_TENANTS',
  'HYPHAE_OAUTH_PROJECTS_CLAIM',
  'HYPHAE_OAUTH_ACCEPT_JWT_TYP',
  'HYPHAE_OAUTH_INTROSPECTION_CLIENT_ID',
  'HYPHAE_OAUTH_INTROSPECTION_CLIENT_SECRET',
  'HYPHAE_CONSOLE_OAUTH_CLIENT_ID',
] as const satisfies readonly (keyof OAuthEnv)[];

function isOrigin(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return url.pathname === '/' && url.search === '' && url.hash === '' && url.username === '' && url.password === '';
}

function invalid(variable: string, message: string): InvalidArgumentError {
  return new InvalidArgumentError(`invalid configuration: ${variable} ${message}`, [{ path: variable, message }]);
}
