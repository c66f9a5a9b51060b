import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForbiddenError } from '../../core/errors.js';
import { loadConfig } from '../../core/config.js';
import { startAuthorizationServer, type AuthorizationServer } from '../../../test/support/authorization-server.js';
import { rejectionOf } from '../../../test/support/rejection.js';
import { InsufficientScopeError, InvalidTokenError } from './oauth-errors.js';
import { OAuthAuthenticator } from './oauth-authenticator.js';

const PUBLIC_URL = 'http://127.0.0.1:8787';
const OPAQUE_PUBLIC_URL = 'http://localhost:8787';
/** The test authorization server's default access token lifetime (300 s). */
const ACCESS_TOKEN_TTL_MS = 300_000;

let as: AuthorizationServer;

beforeAll(async () => {
  as = await startAuthorizationServer({ opaqueResources: [OPAQUE_PUBLIC_URL] });
});

afterAll(async () => {
  await as?.close();
});

function authenticator(env: Record<string, string> = {}): OAuthAuthenticator {
  const config = loadConfig({ HYPHAE_OAUTH_ISSUER: as.issuer, HYPHAE_PUBLIC_URL: PUBLIC_URL, HYPHAE_OAUTH_ALLOWED_TENANTS: 'acme', ...env });
  if (config.oauth === undefined) throw new Error('OAuth is not configured');
  return new OAuthAuthenticator(config.oauth);
}


describe('OAuthAuthenticator with a real authorization server', () => {
  it('turns a token from the code flow into who it speaks for', async () => {
    as.signInAs = { sub: 'alice', claims: { hyphae_tenant: 'acme' } };
    const { accessToken } = await as.obtainAccessToken({ resource: PUBLIC_URL, scope: 'hyphae:read hyphae:write' });
    expect(await authenticator().authenticate(accessToken)).toMatchObject({
      issuer: as.issuer,
      tenantId: 'acme',
      agent: 'alice',
      roles: ['reader', 'writer'],
      projects: ['*'],
    });
  });

  it('answers insufficient_scope for a token granting no hyphae scope', async () => {
    const { accessToken } = await as.obtainAccessToken({ resource: PUBLIC_URL, scope: 'other:read' });
    expect(await rejectionOf(authenticator().authenticate(accessToken))).toBeInstanceOf(InsufficientScopeError);
  });

  it('refuses a token naming a tenant the configuration does not allow', async () => {
    as.signInAs = { sub: 'mallory', claims: { hyphae_tenant: 'globex' } };
    try {
      const { accessToken } = await as.obtainAccessToken({ resource: PUBLIC_URL, scope: 'hyphae:read' });
      const error = await rejectionOf(authenticator().authenticate(accessToken));
      expect(error).toBeInstanceOf(ForbiddenError);
      expect(error.message).toContain('does not allow');
    } finally {
      as.signInAs = { sub: 'alice', claims: { hyphae_tenant: 'acme' } };
    }
  });

  it('places a token without a tenant claim in the default tenant', async () => {
    as.signInAs = { sub: 'bob', claims: {} };
    try {
      const { accessToken } = await as.obtainAccessToken({ resource: PUBLIC_URL, scope: 'hyphae:admin' });
      expect(await authenticator({ HYPHAE_OAUTH_DEFAULT_TENANT: 'acme' }).authenticate(accessToken)).toMatchObject({ tenantId: 'acme', agent: 'bob', roles: ['admin'] });
    } finally {
      as.signInAs = { sub: 'alice', claims: { hyphae_tenant: 'acme' } };
    }
  });

  it('introspects opaque tokens with the configured client, and refuses them once inactive', async () => {
    const check = authenticator({
      HYPHAE_PUBLIC_URL: OPAQUE_PUBLIC_URL,
      HYPHAE_OAUTH_INTROSPECTION_CLIENT_ID: as.introspectionClient.clientId,
      HYPHAE_OAUTH_INTROSPECTION_CLIENT_SECRET: as.introspectionClient.clientSecret,
    });
    const { accessToken } = await as.obtainAccessToken({ resource: OPAQUE_PUBLIC_URL, scope: 'hyphae:read' });
    expect(await check.authenticate(accessToken)).toMatchObject({ tenantId: 'acme', agent: 'alice', roles: ['reader'] });
    await as.revoke(accessToken);
    const fresh = authenticator({
      HYPHAE_PUBLIC_URL: OPAQUE_PUBLIC_URL,
      HYPHAE_OAUTH_INTROSPECTION_CLIENT_ID: as.introspectionClient.clientId,
      HYPHAE_OAUTH_INTROSPECTION_CLIENT_SECRET: as.introspectionClient.clientSecret,
    });
    expect(await rejectionOf(fresh.authenticate(accessToken))).toBeInstanceOf(InvalidTokenError);
  });

  it('holds an introspected identity only until its answer is due again — a whole period for a token without exp — and re-checks it then', async () => {
    let now = Date.now();
    const config = loadConfig({
      HYPHAE_OAUTH_ISSUER: as.issuer,
      HYPHAE_PUBLIC_URL: OPAQUE_PUBLIC_URL,
      HYPHAE_OAUTH_ALLOWED_TENANTS: 'acme',
      HYPHAE_OAUTH_INTROSPECTION_CLIENT_ID: as.introspectionClient.clientId,
      HYPHAE_OAUTH_INTROSPECTION_CLIENT_SECRET: as.introspectionClient.clientSecret,
    }).oauth;
    if (config === undefined) throw new Error('OAuth is not configured');
    const period = 60_000;
    const check = new OAuthAuthenticator(config, { introspectionCacheMs: period, now: () => now });
    as.introspectionOmitsExp = true;
    try {
      const { accessToken } = await as.obtainAccessToken({ resource: OPAQUE_PUBLIC_URL, scope: 'hyphae:read' });
      const identity = await check.authenticate(accessToken);
      expect(identity.expiresAt).toBe(now + period);
      now += period;
      expect(await identity.recheck?.()).toBe(now + period);
      await as.revoke(accessToken);
      now += period;
      expect(await rejectionOf(identity.recheck?.() ?? Promise.resolve())).toBeInstanceOf(InvalidTokenError);
    } finally {
      as.introspectionOmitsExp = false;
    }
    // With exp, never past it: a token living 300 s, introspected with a 10 min period.
    const long = new OAuthAuthenticator(config, { introspectionCacheMs: 600_000 });
    const issuedFrom = Math.floor(Date.now() / 1000) * 1000;
    const { accessToken } = await as.obtainAccessToken({ resource: OPAQUE_PUBLIC_URL, scope: 'hyphae:read' });
    const issuedBy = Date.now();
    const expiresAt = (await long.authenticate(accessToken)).expiresAt ?? 0;
    expect(expiresAt).toBeGreaterThanOrEqual(issuedFrom + ACCESS_TOKEN_TTL_MS);
    expect(expiresAt).toBeLessThanOrEqual(issuedBy + ACCESS_TOKEN_TTL_MS);
  });

  it('gives a JWT identity its exp and nothing to re-check', async () => {
    const token = await as.mint(as.accessTokenClaims(PUBLIC_URL, { exp: 2_000_000_000 }));
    const identity = await authenticator().authenticate(token);
    expect(identity.expiresAt).toBe(2_000_000_000_000);
    expect(identity.recheck).toBeUndefined();
  });
});
