/**
 * The OAuth resource-server configuration (docs/security.md) resolved from its settings
 * (config/oauth-settings.ts): cross-field rules and defaults; a bad combination stops start-up naming the variable.
 */
import { ANY_TENANT, oauthSettings } from './config/oauth-settings.js';
import type { GroupValues } from './config/setting.js';
import { InvalidArgumentError } from './errors.js';

export { ANY_TENANT, CONSOLE_DEFAULT_SCOPE } from './config/oauth-settings.js';

export type OAuthSettings = GroupValues<typeof oauthSettings>;

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

/** Settings that mean nothing without an issuer; one of them set alone is refused rather than ignored. */
const OAUTH_ONLY_SETTINGS = [
  'audience',
  'defaultTenant',
  'allowedTenants',
  'projectsClaim',
  'acceptAnyJwtTyp',
  'introspectionClientId',
  'introspectionClientSecret',
  'consoleClientId',
] as const satisfies readonly (keyof OAuthSettings)[];

/** The OAuth configuration of the settings and the public URL (an origin), or undefined without an issuer. */
export function resolveOAuthConfig(settings: OAuthSettings, publicUrl: string | undefined): OAuthConfig | undefined {
  if (settings.issuer === undefined) {
    const stray = OAUTH_ONLY_SETTINGS.find((name) => settings[name] !== undefined);
    if (stray !== undefined) throw invalid(oauthSettings[stray].env, 'has no effect without HYPHAE_OAUTH_ISSUER');
    return undefined;
  }
  if (publicUrl === undefined) throw invalid('HYPHAE_PUBLIC_URL', 'is required with HYPHAE_OAUTH_ISSUER (it is the resource tokens are issued for)');
  const allowedTenants = settings.allowedTenants ?? (settings.defaultTenant === undefined ? undefined : [settings.defaultTenant]);
  if (allowedTenants === undefined || allowedTenants.length === 0) {
    throw invalid('HYPHAE_OAUTH_ALLOWED_TENANTS', `is required with HYPHAE_OAUTH_ISSUER unless HYPHAE_OAUTH_DEFAULT_TENANT is set (list the tenants a token may name, or "${ANY_TENANT}")`);
  }
  const defaultTenant = settings.defaultTenant;
  if (defaultTenant !== undefined && !allowedTenants.includes(ANY_TENANT) && !allowedTenants.includes(defaultTenant)) {
    throw invalid('HYPHAE_OAUTH_DEFAULT_TENANT', 'must be one of HYPHAE_OAUTH_ALLOWED_TENANTS');
  }
  const clientId = settings.introspectionClientId;
  const clientSecret = settings.introspectionClientSecret;
  if ((clientId === undefined) !== (clientSecret === undefined)) {
    throw invalid(clientId === undefined ? 'HYPHAE_OAUTH_INTROSPECTION_CLIENT_ID' : 'HYPHAE_OAUTH_INTROSPECTION_CLIENT_SECRET', 'is required with its pair (client id and secret for introspection)');
  }
  return {
    issuer: settings.issuer,
    resource: publicUrl,
    // A client may send the resource with URL serialisation's trailing slash, or name the /mcp endpoint.
    audiences: settings.audience === undefined ? [publicUrl, `${publicUrl}/`, `${publicUrl}/mcp`] : [settings.audience],
    tenantClaim: settings.tenantClaim,
    defaultTenant,
    allowedTenants,
    agentClaim: settings.agentClaim,
    projectsClaim: settings.projectsClaim,
    acceptAnyJwtTyp: settings.acceptAnyJwtTyp === true,
    introspection: clientId === undefined || clientSecret === undefined ? undefined : { clientId, clientSecret },
    ...(settings.consoleClientId === undefined ? {} : { console: { clientId: settings.consoleClientId, scope: settings.consoleScopes } }),
  };
}

function invalid(variable: string, message: string): InvalidArgumentError {
  return new InvalidArgumentError(`invalid configuration: ${variable} ${message}`, [{ path: variable, message }]);
}
