/**
 * The OAuth resource-server settings (docs/security.md): which issuer's access tokens are accepted
 * beside API keys, for which audience, and how their claims name a tenant, an agent and projects.
 * Unset HYPHAE_OAUTH_ISSUER: no OAuth at all, API keys only (resolveOAuthConfig holds the cross-field rules).
 */
import { z } from 'zod';
import { createKeyInputSchema } from '../schemas.js';
import { isSecureOrLoopbackUrl } from '../secure-url.js';
import { setting } from './setting.js';

/** In HYPHAE_OAUTH_ALLOWED_TENANTS: any tenant a token names. */
export const ANY_TENANT = '*';

/** What the console asks for by default: everything its pages can do; the identity provider grants what the user may have. */
export const CONSOLE_DEFAULT_SCOPE = 'hyphae:read hyphae:write hyphae:admin';

const secureUrl = z.string().refine(isSecureOrLoopbackUrl, 'must be an https URL (http only on loopback)');
const claimName = z.string().min(1).max(256);
const tenantName = createKeyInputSchema.shape.tenant;

function isOrigin(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return url.pathname === '/' && url.search === '' && url.hash === '' && url.username === '' && url.password === '';
}

/** This server's canonical URL as clients reach it: HYPHAE_PUBLIC_URL's origin. */
export const publicUrlSetting = setting({
  env: 'HYPHAE_PUBLIC_URL',
  parse: secureUrl.refine(isOrigin, 'must be an origin (scheme, host and port) without path, query or fragment').transform((value) => new URL(value).origin),
  doc: 'this server as clients reach it (an origin: `https://memory.example.com`); the OAuth resource and audience',
});

export const oauthSettings = {
  issuer: setting({
    env: 'HYPHAE_OAUTH_ISSUER',
    parse: secureUrl,
    doc: 'accept OAuth access tokens of this authorization server beside API keys (https; http only on loopback) — see [Connect from claude.ai or ChatGPT](#connect-from-claudeai-or-chatgpt)',
  }),
  audience: setting({
    env: 'HYPHAE_OAUTH_AUDIENCE',
    parse: z.string().min(1).max(2048),
    doc: 'the `aud` tokens must carry, when the identity provider cannot use the public URL (default: the public URL, its `/mcp`, with or without a trailing slash)',
  }),
  tenantClaim: setting({ env: 'HYPHAE_OAUTH_TENANT_CLAIM', default: 'hyphae_tenant', parse: claimName, doc: 'access-token claim naming the tenant' }),
  defaultTenant: setting({ env: 'HYPHAE_OAUTH_DEFAULT_TENANT', parse: tenantName, doc: 'tenant of a token without that claim (refused otherwise)' }),
  allowedTenants: setting({
    env: 'HYPHAE_OAUTH_ALLOWED_TENANTS',
    parse: z
      .string()
      .transform((value) => value.split(',').map((item) => item.trim()).filter((item) => item.length > 0))
      .pipe(z.array(z.union([tenantName, z.literal(ANY_TENANT)]))),
    doc: 'tenants a token may name, comma-separated, or `*`; default: the default tenant alone',
  }),
  agentClaim: setting({ env: 'HYPHAE_OAUTH_AGENT_CLAIM', default: 'sub', parse: claimName, doc: 'access-token claim naming the agent' }),
  projectsClaim: setting({
    env: 'HYPHAE_OAUTH_PROJECTS_CLAIM',
    parse: claimName,
    doc: 'access-token claim listing the token\'s projects (array or space-separated); unset: every project of the tenant',
  }),
  acceptAnyJwtTyp: setting({
    env: 'HYPHAE_OAUTH_ACCEPT_JWT_TYP',
    parse: z.enum(['1', '0', 'true', 'false']).transform((v) => v === '1' || v === 'true'),
    doc: '`1` (with `HYPHAE_OAUTH_ISSUER`): accept a JWT access token whatever its `typ` header, for identity providers that do not send RFC 9068\'s `at+jwt`; by default any other `typ` (an ID token\'s `JWT`, or none) is `401 invalid_token` ([docs/security.md](docs/security.md#oauth-access-tokens))',
  }),
  introspectionClientId: setting({
    env: 'HYPHAE_OAUTH_INTROSPECTION_CLIENT_ID',
    parse: z.string().min(1).max(512),
    doc: 'client id for RFC 7662 introspection of opaque (non-JWT) access tokens (with its secret)',
  }),
  introspectionClientSecret: setting({
    env: 'HYPHAE_OAUTH_INTROSPECTION_CLIENT_SECRET',
    parse: z.string().min(1).max(4096),
    doc: 'client secret for RFC 7662 introspection of opaque (non-JWT) access tokens (with its id)',
  }),
  consoleClientId: setting({
    env: 'HYPHAE_CONSOLE_OAUTH_CLIENT_ID',
    parse: z.string().min(1).max(512),
    doc: 'the web console\'s client id at the identity provider (a public client, redirect URI `<public URL>/console/`): the sign-in page then offers the provider beside keys ([docs/console.md](docs/console.md))',
  }),
  consoleScopes: setting({
    env: 'HYPHAE_CONSOLE_OAUTH_SCOPES',
    default: CONSOLE_DEFAULT_SCOPE,
    parse: z.string().trim().min(1).max(1024),
    doc: 'the scopes the console asks for, space-separated; the provider grants what the user may have',
  }),
} as const;
