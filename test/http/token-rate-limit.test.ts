/**
 * With OAuth on: one access token, one rate-limit bucket (issue 41, finding 8): base64url's unused final
 * bits let a JWT be spelt 16 ways that all verify; the limiter keys on what the token decodes to,
 * so the spellings share the token's budget instead of each bringing a fresh one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.js';
import { startAuthorizationServer, type AuthorizationServer } from '../support/authorization-server.js';
import { createHttpTestApp, type HttpTestApp } from '../support/http/http-test-app.js';

const PUBLIC_URL = 'http://127.0.0.1:8787';
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const SPELLINGS = 16;

let as: AuthorizationServer;
let t: HttpTestApp;

beforeAll(async () => {
  as = await startAuthorizationServer();
  const { oauth } = loadConfig({ HYPHAE_OAUTH_ISSUER: as.issuer, HYPHAE_PUBLIC_URL: PUBLIC_URL, HYPHAE_OAUTH_ALLOWED_TENANTS: 'acme' });
  if (oauth === undefined) throw new Error('OAuth is not configured');
  t = await createHttpTestApp({ runtime: { oauth }, config: { oauth, rateLimitPerMinute: SPELLINGS }, logLevel: 'silent' });
});

afterAll(async () => {
  await t?.close();
  await as?.close();
});

/** The token with its signature's last character changed in the bits nothing decodes (RS256: 4 of them). */
function spellingsOf(token: string): string[] {
  const last = BASE64URL.indexOf(token.at(-1) ?? 'A');
  return Array.from({ length: SPELLINGS }, (_, i) => `${token.slice(0, -1)}${BASE64URL[(last & ~0b1111) | i] ?? ''}`);
}

describe('the rate limit of an access token', () => {
  it('counts every spelling of one token against one budget', async () => {
    const token = await as.mint(as.accessTokenClaims(PUBLIC_URL));
    const spellings = spellingsOf(token);
    expect(new Set(spellings).size).toBe(SPELLINGS);
    const statuses: number[] = [];
    for (const spelling of spellings) {
      statuses.push((await t.app.inject({ method: 'GET', url: '/v1/cells', headers: { authorization: `Bearer ${spelling}` } })).statusCode);
    }
    // Each spelling verifies: they are one token to the issuer's key.
    expect(statuses).toEqual(Array.from({ length: SPELLINGS }, () => 200));
    const over = await t.app.inject({ method: 'GET', url: '/v1/cells', headers: { authorization: `Bearer ${token}` } });
    expect(over.statusCode).toBe(429);
    // Another token has its own budget.
    const other = await as.mint(as.accessTokenClaims(PUBLIC_URL, { jti: 'another' }));
    expect((await t.app.inject({ method: 'GET', url: '/v1/cells', headers: { authorization: `Bearer ${other}` } })).statusCode).toBe(200);
  });
});

describe('a 401 with OAuth on', () => {
  it('names both ways to send a key and the access token, and keeps the challenge', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/v1/cells' });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.message).toBe(
      'missing credential: send an API key as "x-hyphae-key: <key>" or "Authorization: Bearer <key>", or an OAuth access token as "Authorization: Bearer <token>"',
    );
    expect(response.headers['www-authenticate']).toMatch(/^Bearer resource_metadata="/);
  });

  it('takes a key as a bearer beside tokens, and challenges a refused one like any 401', async () => {
    const key = (await t.runtime.mintKey({ tenant: 'acme', agent: 'keyed' })).key;
    expect((await t.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: `Bearer ${key}` } })).json()).toMatchObject({ agent: 'keyed' });
    const refused = await t.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: 'Bearer hy_unknown-key-of-nobody' } });
    expect(refused.statusCode).toBe(401);
    // A refused key is no refused token: the challenge names no invalid_token.
    expect(refused.headers['www-authenticate']).not.toContain('invalid_token');
  });
});
