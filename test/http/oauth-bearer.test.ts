/**
 * OAuth access tokens on the HTTP port, against a real authorization server: the challenges of
 * 401 and 403 on REST and /mcp, identity and trust from the token, tenants and scopes refused,
 * bad tokens limited per address like bad keys — and, without OAuth settings, none of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.js';
import type { OAuthConfig } from '../../src/core/oauth-config.js';
import { startAuthorizationServer, type AuthorizationServer } from '../support/authorization-server.js';
import { createHttpTestApp, type HttpTestApp } from '../support/http/http-test-app.js';

const PUBLIC_URL = 'http://127.0.0.1:8787';
const METADATA = `${PUBLIC_URL}/.well-known/oauth-protected-resource`;
const FAILED_AUTH_MAX = 8;
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };
const PING = '{"jsonrpc":"2.0","id":1,"method":"ping"}';

let as: AuthorizationServer;
let oauth: OAuthConfig;
let t: HttpTestApp;

beforeAll(async () => {
  as = await startAuthorizationServer();
  const config = loadConfig({ HYPHAE_OAUTH_ISSUER: as.issuer, HYPHAE_PUBLIC_URL: PUBLIC_URL, HYPHAE_OAUTH_ALLOWED_TENANTS: 'acme' });
  if (config.oauth === undefined) throw new Error('OAuth is not configured');
  oauth = config.oauth;
  t = await createHttpTestApp({ runtime: { oauth }, config: { oauth, failedAuthPerMinute: FAILED_AUTH_MAX }, logLevel: 'silent' });
});

afterAll(async () => {
  await t?.close();
  await as?.close();
});

function bearer(token: string, extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${token}`, ...extra };
}

async function storeWith(token: string, content: string): Promise<{ statusCode: number; body: string; json(): unknown }> {
  return t.app.inject({ method: 'POST', url: '/v1/cells', headers: bearer(token, { 'content-type': 'application/json' }), payload: { content, cell_type: 'Fact' } });
}

describe('OAuth on the HTTP port', () => {
  it('challenges a request without credentials on REST and /mcp, pointing at the metadata it serves', async () => {
    for (const request of [
      { method: 'GET' as const, url: '/v1/cells' },
      { method: 'POST' as const, url: '/mcp', headers: MCP_HEADERS, payload: PING },
    ]) {
      const response = await t.app.inject(request);
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe(`Bearer resource_metadata="${METADATA}", scope="hyphae:read hyphae:write"`);
    }
    const metadata = await t.app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource' });
    expect(metadata.json()).toEqual({
      resource: PUBLIC_URL,
      authorization_servers: [as.issuer],
      scopes_supported: ['hyphae:read', 'hyphae:write', 'hyphae:admin'],
      bearer_methods_supported: ['header'],
      resource_name: 'Hyphae',
    });
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { components: { securitySchemes: Record<string, unknown> } };
    expect(document.components.securitySchemes.bearerToken).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('names the refused token invalid, and never a key', async () => {
    const expired = await as.mint(as.accessTokenClaims(PUBLIC_URL, { exp: Math.floor(Date.now() / 1000) - 120 }));
    const refused = await t.app.inject({ method: 'GET', url: '/v1/cells', headers: bearer(expired), remoteAddress: '10.1.0.1' });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['www-authenticate']).toContain('error="invalid_token", error_description="invalid access token: expired"');
    const badKey = await t.app.inject({ method: 'GET', url: '/v1/cells', headers: { 'x-hyphae-key': 'hy_unknown-key-000000' }, remoteAddress: '10.1.0.1' });
    expect(badKey.statusCode).toBe(401);
    expect(badKey.headers['www-authenticate']).not.toContain('invalid_token');
  });

  it('takes identity from the token and trust from the agent’s keys, the default for an agent first seen', async () => {
    await t.runtime.mintKey({ tenant: 'acme', agent: 'alice', trust: 0.9 });
    as.signInAs = { sub: 'alice', claims: { hyphae_tenant: 'acme' } };
    const alice = await as.obtainAccessToken({ resource: PUBLIC_URL, scope: 'hyphae:read hyphae:write' });
    const stored = await storeWith(alice.accessToken, 'Alice signed in with OAuth.');
    expect(stored.statusCode, stored.body).toBe(201);
    expect(stored.json()).toMatchObject({ source_agent: 'alice', trust: 0.9 });

    as.signInAs = { sub: 'bob', claims: { hyphae_tenant: 'acme' } };
    try {
      const bob = await as.obtainAccessToken({ resource: PUBLIC_URL, scope: 'hyphae:write' });
      const byBob = await storeWith(bob.accessToken, 'Bob has no key.');
      expect(byBob.json()).toMatchObject({ source_agent: 'bob', trust: 0.5 });
    } finally {
      as.signInAs = { sub: 'alice', claims: { hyphae_tenant: 'acme' } };
    }
  });

  it('refuses a token without a hyphae scope with insufficient_scope on REST and /mcp, and a tenant not allowed without it', async () => {
    const { accessToken } = await as.obtainAccessToken({ resource: PUBLIC_URL, scope: 'other:read' });
    for (const request of [
      { method: 'GET' as const, url: '/v1/cells', headers: bearer(accessToken) },
      { method: 'POST' as const, url: '/mcp', headers: bearer(accessToken, MCP_HEADERS), payload: PING },
    ]) {
      const response = await t.app.inject(request);
      expect(response.statusCode).toBe(403);
      expect(response.headers['www-authenticate']).toContain('error="insufficient_scope"');
      expect(response.headers['www-authenticate']).toContain('scope="hyphae:read hyphae:write"');
    }
    const globex = await as.mint(as.accessTokenClaims(PUBLIC_URL, { hyphae_tenant: 'globex' }));
    const foreign = await t.app.inject({ method: 'GET', url: '/v1/cells', headers: bearer(globex) });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().error.code).toBe('FORBIDDEN');
    expect(foreign.headers['www-authenticate']).toBeUndefined();
  });

  it('refuses forged and misdirected tokens with 401 invalid_token on REST and /mcp, never a 5xx, and logs why without the token', async () => {
    const logged = await createHttpTestApp({ sharedRuntime: t.runtime, config: { oauth }, logLevel: 'info' });
    try {
      const claims = as.accessTokenClaims(PUBLIC_URL);
      const issuerKid = (JSON.parse(Buffer.from((await as.mint(claims)).split('.')[0] ?? '', 'base64url').toString()) as { kid: string }).kid;
      const refusals: Record<string, string> = {
        'not issued for this server (aud)': (await as.obtainAccessToken({ resource: 'https://other.example.com', scope: 'hyphae:read hyphae:write' })).accessToken,
        '(iss)': await as.mint({ ...claims, iss: 'https://other-issuer.example.com' }),
        expired: await as.mint(as.accessTokenClaims(PUBLIC_URL, { exp: Math.floor(Date.now() / 1000) - 120 })),
        'signing algorithm not allowed': as.mintUnsigned(claims),
        'signing algorithm not allowed ': await as.mintHmacWithPublicKey(claims),
        'signature does not verify': await as.mint(claims, { signer: 'foreign', kid: issuerKid }),
        'a key the issuer does not publish': await as.mint(claims, { signer: 'foreign' }),
        malformed: `x.${'y'.repeat(40)}.z`,
      };
      for (const [reason, token] of Object.entries(refusals)) {
        for (const request of [
          { method: 'GET' as const, url: '/v1/cells', headers: bearer(token) },
          { method: 'POST' as const, url: '/mcp', headers: bearer(token, MCP_HEADERS), payload: PING },
        ]) {
          const response = await logged.app.inject(request);
          expect(response.statusCode, `${reason} on ${request.url}`).toBe(401);
          expect(response.headers['www-authenticate']).toContain('error="invalid_token"');
          expect(response.headers['www-authenticate']).toContain(reason.trim());
        }
      }
      const refusedLines = logged.logLines.filter((line) => line.includes('access token refused'));
      expect(refusedLines).toHaveLength(2 * Object.keys(refusals).length);
      for (const reason of Object.keys(refusals)) expect(refusedLines.some((line) => line.includes(reason.trim()))).toBe(true);
      for (const token of Object.values(refusals)) {
        const [, payload = token] = token.split('.');
        for (const line of logged.logLines) expect(line).not.toContain(payload);
      }
      expect(logged.logLines.some((line) => /"statusCode":5\d\d/.test(line))).toBe(false);
    } finally {
      await logged.close();
    }
  });

  it('limits bad tokens per client address as it limits bad keys', async () => {
    const claims = as.accessTokenClaims(PUBLIC_URL);
    const forgeries = [as.mintUnsigned(claims), await as.mintHmacWithPublicKey(claims), await as.mint(claims, { signer: 'foreign' }), 'not-a-jwt'];
    const statuses: number[] = [];
    for (let i = 0; i < FAILED_AUTH_MAX + 4; i += 1) {
      const token = forgeries[i % forgeries.length] ?? '';
      const response = await t.app.inject({ method: 'GET', url: '/v1/cells', headers: bearer(token), remoteAddress: '10.7.7.7' });
      statuses.push(response.statusCode);
    }
    expect(statuses.filter((status) => status === 401)).toHaveLength(FAILED_AUTH_MAX);
    expect(statuses.slice(FAILED_AUTH_MAX)).toEqual([429, 429, 429, 429]);
    const good = await as.mint(as.accessTokenClaims(PUBLIC_URL));
    expect((await t.app.inject({ method: 'GET', url: '/v1/cells', headers: bearer(good), remoteAddress: '10.7.7.7' })).statusCode).toBe(429);
    expect((await t.app.inject({ method: 'GET', url: '/v1/cells', headers: bearer(good), remoteAddress: '10.7.7.8' })).statusCode).toBe(200);
  });
});

describe('without OAuth settings', () => {
  it('serves no metadata, challenges nobody and accepts no token', async () => {
    const plain = await createHttpTestApp({ logLevel: 'silent' });
    try {
      const token = await as.mint(as.accessTokenClaims(PUBLIC_URL));
      const refused = await plain.app.inject({ method: 'GET', url: '/v1/cells', headers: bearer(token) });
      expect(refused.statusCode).toBe(401);
      expect(refused.headers['www-authenticate']).toBeUndefined();
      expect((await plain.app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource' })).statusCode).toBe(404);
    } finally {
      await plain.close();
    }
  });
});
