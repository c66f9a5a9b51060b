/**
 * /console as `hyphae serve` serves it: the bundle's files with the console's CSP (the API keeps
 * its own), gzip and caching, the same Host and Origin rules as the API, HYPHAE_CONSOLE=off, and
 * an installation without a built bundle saying how to build one.
 */
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP, CONSOLE_SIGN_IN_PATH, consoleCsp, registerConsoleRoutes, type ConsoleSignIn } from '../../src/console/index.js';
import { startConsoleServer, type ConsoleServer } from '../support/console-server.js';
import { createTestDb } from '../support/test-db.js';

describe('GET /console on the serve app', () => {
  let server: ConsoleServer;
  let indexHtml = '';

  beforeAll(async () => {
    server = await startConsoleServer({ openDb: createTestDb });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('redirects /console to /console/ and serves the page with the console CSP and the API security headers', async () => {
    const redirect = await fetch(`${server.url}/console`, { redirect: 'manual' });
    expect(redirect.status).toBe(308);
    expect(redirect.headers.get('location')).toBe('/console/');
    const page = await fetch(`${server.url}/console/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("default-src 'self'");
    expect(CONSOLE_CSP).not.toContain('unsafe');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    indexHtml = await page.text();
    expect(indexHtml).toMatch(/<script type="module" crossorigin src="\/console\/assets\/[^"]+\.js"><\/script>/);
    // Nothing inline for the CSP to refuse, and nothing from elsewhere.
    expect(indexHtml).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(indexHtml).not.toMatch(/\b(src|href)="(https?:)?\/\//);
  });

  it('serves content-hashed assets gzipped when asked, cacheable for good', async () => {
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(indexHtml)?.[1] ?? '';
    const zipped = await fetch(`${server.url}${script}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(zipped.status).toBe(200);
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(zipped.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(zipped.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await zipped.text()).length).toBeGreaterThan(1000);
  });

  it('answers 404 for a file the bundle does not hold, however the path is spelled', async () => {
    for (const path of ['/console/nope.js', '/console/%2e%2e/package.json', '/console/assets/..%2f..%2fpackage.json']) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status, path).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    }
  });

  it('keeps the API routes on their own policy', async () => {
    const health = await fetch(`${server.url}/healthz`);
    expect(health.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
  });

  it('applies the API Host and Origin rules', async () => {
    const rebound = await server.app.inject({ method: 'GET', url: '/console/', headers: { host: 'evil.example' } });
    expect(rebound.statusCode).toBe(421);
    const foreign = await server.app.inject({ method: 'GET', url: '/console/', headers: { host: 'localhost', origin: 'https://evil.example' } });
    expect(foreign.statusCode).toBe(403);
    const sameOrigin = await server.app.inject({ method: 'GET', url: '/console/', headers: { host: 'localhost:8787', origin: 'http://localhost:8787' } });
    expect(sameOrigin.statusCode).toBe(200);
  });
});

describe('HYPHAE_CONSOLE=off', () => {
  it('serves no console', async () => {
    const server = await startConsoleServer({ env: { HYPHAE_CONSOLE: 'off' }, openDb: createTestDb });
    try {
      expect((await fetch(`${server.url}/console/`)).status).toBe(404);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('an installation whose bundle was never built', () => {
  it('answers 503 naming the command that builds it', async () => {
    const app = Fastify();
    registerConsoleRoutes(app, undefined);
    await app.ready();
    const response = await app.inject({ method: 'GET', url: '/console/' });
    expect(response.statusCode).toBe(503);
    expect(response.body).toContain('npm run build:console');
    await app.close();
  });
});

describe('GET /console/oauth.json (sign-in through the identity provider)', () => {
  const signIn = (endpoints: ConsoleSignIn['endpoints']): ConsoleSignIn => ({
    issuer: 'https://id.example.com',
    clientId: 'hyphae-console',
    scope: 'hyphae:read hyphae:write hyphae:admin',
    resource: 'https://hyphae.example.com',
    endpoints,
  });

  async function get(sign: ConsoleSignIn | undefined): Promise<{ status: number; body: unknown; csp: unknown; retryAfter: unknown }> {
    const app = Fastify();
    registerConsoleRoutes(app, undefined, sign);
    await app.ready();
    const response = await app.inject({ method: 'GET', url: CONSOLE_SIGN_IN_PATH });
    await app.close();
    return { status: response.statusCode, body: response.json(), csp: response.headers['content-security-policy'], retryAfter: response.headers['retry-after'] };
  }

  it('says everything the page needs for authorization code with PKCE, and admits the token endpoint in the CSP', async () => {
    const answer = await get(signIn(async () => ({ authorizationEndpoint: 'https://id.example.com/authorize', tokenEndpoint: 'https://tokens.example.net/token' })));
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      enabled: true,
      issuer: 'https://id.example.com',
      client_id: 'hyphae-console',
      scope: 'hyphae:read hyphae:write hyphae:admin',
      resource: 'https://hyphae.example.com',
      redirect_uri: 'https://hyphae.example.com/console/',
      authorization_endpoint: 'https://id.example.com/authorize',
      token_endpoint: 'https://tokens.example.net/token',
    });
    expect(answer.csp).toBe(consoleCsp('https://tokens.example.net'));
  });

  it('answers 503 with Retry-After while the provider cannot be reached, the CSP unwidened', async () => {
    const answer = await get(signIn(() => Promise.reject(new Error('connection refused'))));
    expect(answer.status).toBe(503);
    expect(answer.retryAfter).toBe('10');
    expect((answer.body as { error: { code: string } }).error.code).toBe('UNAVAILABLE');
    expect(answer.csp).toBe(CONSOLE_CSP);
  });

  it('answers 200 {"enabled":false} when the console signs in with keys only: the page asks on every load, and nothing is missing', async () => {
    const answer = await get(undefined);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ enabled: false });
    expect(answer.csp).toBe(CONSOLE_CSP);
  });
});
