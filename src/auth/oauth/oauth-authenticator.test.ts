import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForbiddenError } from '../../core/errors.js';
import { loadConfig } from '../../core/config.js';
import { startAuthorizationServer, type AuthorizationServer } from '../../../test/support/authorization-server.js';
import { rejectionOf } from '../../../test/support/rejection.js';
import { InsufficientScopeError, InvalidTokenError } from './oauth-errors.js';
import { OAuthAuthenticator } from './oauth-authenticator.js';

const PUBLIC_URL = 'http://127.0.0.1:8787';
const OPAQUE_PUBLIC_URL = 'http://localhost:8787';

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
});
