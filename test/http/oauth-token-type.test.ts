/**
 * Only access tokens are access tokens (RFC 9068): an ID token of the same issuer names the same
 * user and, when the provider puts the resource in its `aud`, passed every other check — the
 * audit had one served. Its `typ` (`JWT`, not `at+jwt`) now answers 401 on REST and /mcp, unless
 * HYPHAE_OAUTH_ACCEPT_JWT_TYP=1 says the provider sends no `at+jwt`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.js';
import type { OAuthConfig } from '../../src/core/oauth-config.js';
import { startAuthorizationServer, type AuthorizationServer } from '../support/authorization-server.js';
import { createHttpTestApp, type HttpTestApp } from '../support/http/http-test-app.js';

const PUBLIC_URL = 'http://127.0.0.1:8787';
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };
const PING = '{"jsonrpc":"2.0","id":1,"method":"ping"}';

let as: AuthorizationServer;
let strict: HttpTestApp;

function oauthConfig(env: Record<string, string> = {}): OAuthConfig {
  const config = loadConfig({ HYPHAE_OAUTH_ISSUER: as.issuer, HYPHAE_PUBLIC_URL: PUBLIC_URL, HYPHAE_OAUTH_ALLOWED_TENANTS: 'acme', ...env });
  if (config.oauth === undefined) throw new Error('OAuth is not configured');
  return config.oauth;
}

beforeAll(async () => {
  as = await startAuthorizationServer();
  const oauth = oauthConfig();
  strict = await createHttpTestApp({ runtime: { oauth }, config: { oauth }, logLevel: 'silent' });
});

afterAll(async () => {
  await strict?.close();
  await as?.close();
});

/** What a provider signs as an ID token for a client whose id is this server's URL: `typ: JWT`, a `nonce`, the same user. */
async function idTokenShaped(): Promise<string> {
  return as.mint(as.accessTokenClaims(PUBLIC_URL, { nonce: 'n-0S6_WzA2Mj', auth_time: Math.floor(Date.now() / 1000) }), { typ: 'JWT' });
}

function requests(token: string): { method: 'GET' | 'POST'; url: string; headers: Record<string, string>; payload?: string }[] {
  return [
    { method: 'GET', url: '/v1/cells', headers: { authorization: `Bearer ${token}` } },
    { method: 'POST', url: '/mcp', headers: { authorization: `Bearer ${token}`, ...MCP_HEADERS }, payload: PING },
  ];
}

describe('the typ of a JWT access token', () => {
  it('refuses an ID-token-shaped JWT whose aud names this server with 401 invalid_token, on REST and /mcp', async () => {
    const token = await idTokenShaped();
    for (const request of requests(token)) {
      const response = await strict.app.inject(request);
      expect(response.statusCode, request.url).toBe(401);
      expect(response.headers['www-authenticate']).toContain('error="invalid_token", error_description="invalid access token: not an access token (typ is not at+jwt)"');
    }
    // The same claims typed as an access token are served: only the type was wrong.
    const accessToken = await as.mint(as.accessTokenClaims(PUBLIC_URL, { nonce: 'n-0S6_WzA2Mj' }));
    for (const request of requests(accessToken)) expect((await strict.app.inject(request)).statusCode, request.url).toBe(200);
  });

  it('serves it with HYPHAE_OAUTH_ACCEPT_JWT_TYP=1, for providers that send no at+jwt', async () => {
    const oauth = oauthConfig({ HYPHAE_OAUTH_ACCEPT_JWT_TYP: '1' });
    const lax = await createHttpTestApp({ runtime: { oauth }, config: { oauth }, logLevel: 'silent' });
    try {
      for (const request of requests(await idTokenShaped())) expect((await lax.app.inject(request)).statusCode, request.url).toBe(200);
    } finally {
      await lax.close();
    }
  });
});
