import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../core/config.js';
import type { OAuthConfig } from '../../core/oauth-config.js';
import { startAuthorizationServer, type AuthorizationServer } from '../../../test/support/authorization-server.js';
import { rejectionOf } from '../../../test/support/rejection.js';
import { createTestDb, type TestDb } from '../../../test/support/test-db.js';
import { createKeyAdministration } from '../key-administration.js';
import { InvalidTokenError } from './oauth-errors.js';
import { TokenPrincipals, tokenKeyId } from './token-principals.js';

const PUBLIC_URL = 'http://127.0.0.1:8787';

let as: AuthorizationServer;
let db: TestDb;
let oauth: OAuthConfig;

beforeAll(async () => {
  [as, db] = await Promise.all([startAuthorizationServer(), createTestDb()]);
  const config = loadConfig({ HYPHAE_OAUTH_ISSUER: as.issuer, HYPHAE_PUBLIC_URL: PUBLIC_URL, HYPHAE_OAUTH_ALLOWED_TENANTS: 'acme' });
  if (config.oauth === undefined) throw new Error('OAuth is not configured');
  oauth = config.oauth;
  await createKeyAdministration(db).createKey({ tenant: 'acme', agent: 'alice', trust: 0.8 });
});

afterAll(async () => {
  await as?.close();
  await db?.close();
});

describe('TokenPrincipals', () => {
  it('makes a principal of a token: its identity, the agent’s key trust or the default, a key id of its own and the expiry', async () => {
    const principals = new TokenPrincipals(db, oauth, { cacheTtlMs: 0 });
    const exp = Math.floor(Date.now() / 1000) + 60;
    const alice = await principals.authenticate(await as.mint(as.accessTokenClaims(PUBLIC_URL, { sub: 'alice', exp })));
    expect(alice).toEqual({
      tenantId: 'acme',
      agent: 'alice',
      roles: ['reader', 'writer'],
      projects: ['*'],
      defaultProject: 'default',
      keyId: tokenKeyId({ issuer: as.issuer, tenantId: 'acme', agent: 'alice' }),
      trust: 0.8,
      expiresAt: exp * 1000,
    });
    const carol = await principals.authenticate(await as.mint(as.accessTokenClaims(PUBLIC_URL, { sub: 'carol' })));
    expect(carol.trust).toBe(0.5);
    expect(carol.keyId).not.toBe(alice.keyId);
  });

  it('derives key ids that are UUIDs, stable per issuer, tenant and agent', () => {
    const id = tokenKeyId({ issuer: 'https://id.example.com', tenantId: 'acme', agent: 'alice' });
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(tokenKeyId({ issuer: 'https://id.example.com', tenantId: 'acme', agent: 'alice' })).toBe(id);
    expect(tokenKeyId({ issuer: 'https://other.example.com', tenantId: 'acme', agent: 'alice' })).not.toBe(id);
    expect(tokenKeyId({ issuer: 'https://id.example.com', tenantId: 'acm', agent: 'ealice' })).not.toBe(id);
  });

  it('reuses a principal within the cache time, never past the token’s expiry', async () => {
    let now = Date.now();
    const principals = new TokenPrincipals(db, oauth, { cacheTtlMs: 600_000, now: () => now });
    const token = await as.mint(as.accessTokenClaims(PUBLIC_URL, { sub: 'alice', exp: Math.floor(now / 1000) + 60 }));
    const first = await principals.authenticate(token);
    now += 30_000;
    expect(await principals.authenticate(token)).toBe(first);
    now += 61_000;
    expect(await rejectionOf(principals.authenticate(token))).toBeInstanceOf(InvalidTokenError);
  });
});
