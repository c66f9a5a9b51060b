/**
 * The security defaults of docs/security.md, each on the real app and facade: Host allowlist (421), Origin
 * (403) and CORS, body limit (413), per-key rate limit (429 + Retry-After), security headers,
 * request ids, secrets kept out of logs, and no internals in 500s.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type MintedKey, type TestRuntime } from '../support/test-runtime.js';
import { createHttpTestApp, type HttpTestApp, type HttpTestAppOptions } from '../support/http/http-test-app.js';

let runtime: TestRuntime;
let key: MintedKey;
const apps: HttpTestApp[] = [];

async function appWith(options: Omit<HttpTestAppOptions, 'sharedRuntime'> = {}): Promise<HttpTestApp> {
  const app = await createHttpTestApp({ ...options, sharedRuntime: runtime });
  apps.push(app);
  return app;
}

const MCP_PING = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });

beforeAll(async () => {
  runtime = await createTestRuntime();
  key = await runtime.mintKey({ tenant: 'sec', agent: 'alice' });
});

afterAll(async () => {
  for (const app of apps) await app.close();
  await runtime?.close();
});

describe('Host allowlist', () => {
  it('always accepts loopback names and addresses, with or without port', async () => {
    const { app } = await appWith();
    for (const host of ['localhost', 'localhost:8787', '127.0.0.1:8787', '[::1]:8787', '[::1]']) {
      const response = await app.inject({ method: 'GET', url: '/v1/cells', headers: { host, 'x-hyphae-key': key.key } });
      expect(response.statusCode, host).toBe(200);
    }
  });

  it('answers 421 to any other Host, on REST and on /mcp, before authentication', async () => {
    const { app } = await appWith();
    for (const host of ['evil.example', 'evil.example:8787', '10.0.0.7:8787', 'localhost.evil.example', '[::2]:8787']) {
      const rest = await app.inject({ method: 'GET', url: '/v1/cells', headers: { host, 'x-hyphae-key': key.key } });
      expect(rest.statusCode, host).toBe(421);
      expect(rest.json().error.code).toBe('FORBIDDEN');
      const mcp = await app.inject({
        method: 'POST',
        url: '/mcp',
        headers: { host, 'content-type': 'application/json', accept: 'application/json', 'x-hyphae-key': key.key },
        payload: MCP_PING,
      });
      expect(mcp.statusCode, host).toBe(421);
    }
  });

  it('accepts configured names (port and case ignored) and still refuses the rest', async () => {
    const { app } = await appWith({ config: { allowedHosts: ['Hyphae.Example.com', '*.svc.cluster.local'] } });
    const ok = async (host: string): Promise<number> =>
      (await app.inject({ method: 'GET', url: '/v1/cells', headers: { host, 'x-hyphae-key': key.key } })).statusCode;
    expect(await ok('hyphae.example.com:443')).toBe(200);
    expect(await ok('hyphae.ns.svc.cluster.local:8787')).toBe(200);
    expect(await ok('example.com')).toBe(421);
  });

  it('checks the forwarded host only behind a trusted proxy', async () => {
    const headers = { host: '10.0.0.5:8787', 'x-forwarded-host': 'hyphae.example.com', 'x-hyphae-key': key.key };
    const trusting = await appWith({ config: { allowedHosts: ['hyphae.example.com'], trustProxy: 1 } });
    expect((await trusting.app.inject({ method: 'GET', url: '/v1/cells', headers })).statusCode).toBe(200);
    const direct = await appWith({ config: { allowedHosts: ['hyphae.example.com'] } });
    expect((await direct.app.inject({ method: 'GET', url: '/v1/cells', headers })).statusCode).toBe(421);
  });

  it('behind a trusted proxy, limits the address that proxy appended, not the left-most one the client wrote', async () => {
    const { app } = await appWith({ config: { trustProxy: 1, failedAuthPerMinute: 2 } });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      const headers = { 'x-hyphae-key': 'hy_unknown-key-000000', 'x-forwarded-for': `203.0.113.${i}, 198.51.100.7` };
      statuses.push((await app.inject({ method: 'GET', url: '/v1/cells', headers, remoteAddress: '10.0.0.2' })).statusCode);
    }
    expect(statuses).toEqual([401, 401, 429, 429]);
  });

  it('lets probes and scrapes through whatever the Host (pods are addressed by IP)', async () => {
    const { app } = await appWith();
    for (const url of ['/healthz', '/readyz', '/metrics']) {
      expect((await app.inject({ method: 'GET', url, headers: { host: '10.1.2.3:8787' } })).statusCode, url).toBe(200);
    }
  });
});

describe('Origin and CORS', () => {
  it('with no origins listed: a browser Origin is 403 (REST and /mcp), no CORS headers; no Origin passes', async () => {
    const { app } = await appWith();
    const rest = await app.inject({ method: 'GET', url: '/v1/cells', headers: { origin: 'https://evil.example', 'x-hyphae-key': key.key } });
    expect(rest.statusCode).toBe(403);
    expect(rest.json().error.code).toBe('FORBIDDEN');
    expect(rest.headers['access-control-allow-origin']).toBeUndefined();
    const mcp = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { origin: 'http://localhost:3000', 'content-type': 'application/json', accept: 'application/json', 'x-hyphae-key': key.key },
      payload: MCP_PING,
    });
    expect(mcp.statusCode).toBe(403);
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/mcp',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.statusCode).toBe(403);
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    expect((await app.inject({ method: 'GET', url: '/v1/cells', headers: { 'x-hyphae-key': key.key } })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/v1/cells', headers: { origin: 'null', 'x-hyphae-key': key.key } })).statusCode).toBe(403);
  });

  it('lets a same-origin request through without CORS headers; a rebound name is refused by Host first', async () => {
    const { app } = await appWith({ config: { allowedHosts: ['hyphae.example.com'] } });
    const call = (host: string, origin: string) =>
      app.inject({ method: 'GET', url: '/v1/cells', headers: { host, origin, 'x-hyphae-key': key.key } });
    const loopback = await call('127.0.0.1:8787', 'http://127.0.0.1:8787');
    expect(loopback.statusCode).toBe(200);
    expect(loopback.headers['access-control-allow-origin']).toBeUndefined();
    expect((await call('localhost', 'http://localhost:80')).statusCode).toBe(200);
    expect((await call('hyphae.example.com', 'https://hyphae.example.com')).statusCode).toBe(200);
    // Another port or host on the same machine is another origin.
    expect((await call('127.0.0.1:8787', 'http://127.0.0.1:3000')).statusCode).toBe(403);
    expect((await call('127.0.0.1:8787', 'http://localhost:8787')).statusCode).toBe(403);
    expect((await call('127.0.0.1:8787', 'null')).statusCode).toBe(403);
    // DNS rebinding: the page and the Host agree, but the name is not one this server answers for.
    expect((await call('evil.example:8787', 'http://evil.example:8787')).statusCode).toBe(421);
  });

  it('with origins listed: preflight for them only, and the headers MCP needs are allowed and exposed', async () => {
    const { app } = await appWith({ config: { allowedOrigins: ['https://app.example.com'] } });
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/mcp',
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, x-hyphae-key, mcp-protocol-version',
      },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(preflight.headers.vary).toContain('Origin');
    const allowedHeaders = String(preflight.headers['access-control-allow-headers']).split(/,\s*/);
    expect(allowedHeaders).toEqual(expect.arrayContaining(['content-type', 'x-hyphae-key', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id']));
    expect(String(preflight.headers['access-control-allow-methods'])).toContain('POST');

    const mcp = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { origin: 'https://app.example.com', 'content-type': 'application/json', accept: 'application/json', 'x-hyphae-key': key.key },
      payload: MCP_PING,
    });
    expect(mcp.statusCode).toBe(200);
    expect(mcp.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(String(mcp.headers['access-control-expose-headers']).split(/,\s*/)).toEqual(
      expect.arrayContaining(['mcp-session-id', 'mcp-protocol-version', 'x-request-id', 'retry-after']),
    );

    const other = await app.inject({ method: 'OPTIONS', url: '/mcp', headers: { origin: 'https://other.example.com', 'access-control-request-method': 'POST' } });
    expect(other.statusCode).toBe(403);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('body limit', () => {
  it('answers 413 TOO_LARGE in the error shape over the configured limit, on REST and /mcp', async () => {
    const { app } = await appWith({ config: { bodyLimitBytes: 2048 } });
    const body = JSON.stringify({ content: 'x'.repeat(4096), cell_type: 'Fact' });
    const rest = await app.inject({
      method: 'POST',
      url: '/v1/cells',
      headers: { 'content-type': 'application/json', 'x-hyphae-key': key.key },
      payload: body,
    });
    expect(rest.statusCode).toBe(413);
    expect(rest.json().error.code).toBe('TOO_LARGE');
    // The refusal names the limit and the setting that raises it.
    expect(rest.json().error).toMatchObject({
      message: 'request body is larger than the limit of 2048 bytes; HYPHAE_BODY_LIMIT_BYTES raises it',
      details: { limit_bytes: 2048, setting: 'HYPHAE_BODY_LIMIT_BYTES' },
    });
    const mcp = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-hyphae-key': key.key },
      payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(4096) } }),
    });
    expect(mcp.statusCode).toBe(413);
    expect(mcp.json().error.message).toBe('request body is larger than the limit of 2048 bytes; HYPHAE_BODY_LIMIT_BYTES raises it');
  });

  it('defaults to 256 KiB', async () => {
    const { app } = await appWith();
    const headers = { 'content-type': 'application/json', 'x-hyphae-key': key.key };
    const over = await app.inject({ method: 'POST', url: '/v1/cells', headers, payload: JSON.stringify({ content: 'x'.repeat(256 * 1024), cell_type: 'Fact' }) });
    expect(over.statusCode).toBe(413);
    const under = await app.inject({
      method: 'POST',
      url: '/v1/cells',
      headers,
      payload: JSON.stringify({ content: 'ok', cell_type: 'Fact', metadata: { pad: 'x'.repeat(15 * 1024) } }),
    });
    expect(under.statusCode).toBe(201);
  });
});

describe('rate limit', () => {
  it('limits per key with 429 RATE_LIMITED and Retry-After, other keys unaffected; probes never limited', async () => {
    const { app } = await appWith({ config: { rateLimitPerMinute: 3 } });
    const other = await runtime.mintKey({ tenant: 'sec', agent: 'bob' });
    const get = (apiKey: string): Promise<{ statusCode: number; headers: Record<string, unknown>; json(): { error: { code: string } } }> =>
      app.inject({ method: 'GET', url: '/v1/cells', headers: { 'x-hyphae-key': apiKey } });
    for (let i = 0; i < 3; i += 1) expect((await get(key.key)).statusCode).toBe(200);
    const limited = await get(key.key);
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error.code).toBe('RATE_LIMITED');
    const retryAfter = Number(limited.headers['retry-after']);
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    expect((await get(other.key)).statusCode).toBe(200);
    const mcp = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-hyphae-key': key.key },
      payload: MCP_PING,
    });
    expect(mcp.statusCode).toBe(429);
    expect(mcp.headers['retry-after']).toBeDefined();
    for (let i = 0; i < 5; i += 1) expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });

  it('limits unauthenticated callers by IP', async () => {
    const { app } = await appWith({ config: { rateLimitPerMinute: 2 } });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await app.inject({ method: 'GET', url: '/v1/cells', remoteAddress: '198.51.100.7' })).statusCode);
    expect(statuses).toEqual([401, 401, 429]);
    expect((await app.inject({ method: 'GET', url: '/v1/cells', remoteAddress: '198.51.100.8' })).statusCode).toBe(401);
  });

  it('limits a flood of bad keys on /mcp before authentication', async () => {
    const { app } = await appWith({ config: { rateLimitPerMinute: 2 } });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const response = await app.inject({
        method: 'POST',
        url: '/mcp',
        remoteAddress: '198.51.100.9',
        headers: { 'content-type': 'application/json', accept: 'application/json', 'x-hyphae-key': 'hy_guess' },
        payload: MCP_PING,
      });
      statuses.push(response.statusCode);
    }
    expect(statuses).toEqual([401, 401, 429]);
  });
});

describe('headers and request ids', () => {
  it('sets the security headers on successes, client errors, unknown routes and /mcp', async () => {
    const { app } = await appWith();
    const responses = [
      await app.inject({ method: 'GET', url: '/v1/cells', headers: { 'x-hyphae-key': key.key } }),
      await app.inject({ method: 'GET', url: '/v1/cells' }),
      await app.inject({ method: 'GET', url: '/no/such/route' }),
      await app.inject({ method: 'GET', url: '/openapi.json' }),
      await app.inject({
        method: 'POST',
        url: '/mcp',
        headers: { 'content-type': 'application/json', accept: 'application/json', 'x-hyphae-key': key.key },
        payload: MCP_PING,
      }),
    ];
    for (const response of responses) {
      expect(response.headers).toMatchObject({
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'x-frame-options': 'DENY',
        'cache-control': 'no-store',
      });
      expect(String(response.headers['content-security-policy'])).toContain("default-src 'none'");
      expect(response.headers['x-request-id']).toEqual(expect.any(String));
    }
    expect(responses[2]?.statusCode).toBe(404);
    expect(responses[2]?.json().error.code).toBe('NOT_FOUND');
  });

  it('keeps a sane x-request-id, replaces an insane one, and logs it', async () => {
    const t = await appWith();
    const kept = await t.app.inject({ method: 'GET', url: '/v1/cells', headers: { 'x-request-id': 'trace-abc.123' } });
    expect(kept.headers['x-request-id']).toBe('trace-abc.123');
    const replaced = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'bad id\twith "quotes"' } });
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const logged = t.logLines.map((line) => JSON.parse(line) as { request_id?: string });
    expect(logged.some((entry) => entry.request_id === 'trace-abc.123')).toBe(true);
    // Probes stay out of the request log.
    const before = t.logLines.length;
    await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(t.logLines.length).toBe(before);
  });
});

describe('secrets and internals', () => {
  it('never writes an API key to the log, including a freshly minted one, at debug level', async () => {
    const t = await appWith({ logLevel: 'debug' });
    const admin = await runtime.mintKey({ tenant: 'sec', agent: 'root', roles: ['admin'] });
    await t.app.inject({ method: 'GET', url: '/v1/cells', headers: { 'x-hyphae-key': key.key } });
    await t.app.inject({ method: 'GET', url: '/v1/cells', headers: { 'x-hyphae-key': 'hy_wrong-key-material' } });
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/admin/keys',
      headers: { 'x-hyphae-key': admin.key, 'content-type': 'application/json' },
      payload: JSON.stringify({ tenant: 'sec', agent: 'new-bot' }),
    });
    expect(created.statusCode).toBe(201);
    // Anything that does log headers or keys goes through the redaction paths.
    t.app.log.info({ req: { headers: { 'x-hyphae-key': key.key, authorization: `Bearer ${key.key}` } } }, 'headers');
    t.app.log.info({ created: { key: created.json().key } }, 'a created key');
    const text = t.logLines.join('\n');
    expect(t.logLines.length).toBeGreaterThan(5);
    for (const secret of [key.key, admin.key, 'hy_wrong-key-material', created.json().key as string]) expect(text).not.toContain(secret);
    expect(text).toContain('[redacted]');
  });

  it('answers 500 `internal error` without stack or SQL when the database is gone, and /readyz turns 503', async () => {
    const broken = await createTestRuntime();
    const brokenKey = await broken.mintKey({ tenant: 'sec', agent: 'alice' });
    const t = await createHttpTestApp({ sharedRuntime: broken });
    apps.push(t);
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    await broken.db.close();
    const response = await t.app.inject({ method: 'GET', url: `/v1/cells/${randomUUID()}`, headers: { 'x-hyphae-key': brokenKey.key } });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({ error: { code: 'INTERNAL', message: 'internal error' } });
    expect(response.body).not.toMatch(/\bat |SELECT|pglite|\.ts:/i);
    expect(t.logLines.some((line) => line.includes('"level":50'))).toBe(true);
    expect(t.logLines.join('\n')).not.toContain(brokenKey.key);
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({ status: 'unready', failing: ['database'], checks: { database: 'failing' } });
    await broken.facade.close().catch(() => undefined);
    await broken.embedder.close();
  });
});

describe('health and readiness', () => {
  it('/healthz is cheap and keyless; /readyz names each check, failing and timed-out ones', async () => {
    const t = await appWith({
      config: { readinessTimeoutMs: 50 },
      readiness: [
        { name: 'database', check: async () => void (await runtime.db.query('SELECT 1')) },
        { name: 'bus', check: async () => Promise.reject(new Error('nats: connection refused')) },
        { name: 'embedder', check: () => new Promise<void>(() => undefined) },
      ],
    });
    const health = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.json()).toEqual({ status: 'ok', version: '0.0.0-test' });
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toEqual({
      status: 'unready',
      checks: { database: 'ok', bus: 'failing', embedder: 'timeout' },
      failing: ['bus', 'embedder'],
    });
    expect(ready.body).not.toContain('connection refused');
  });

  it('/metrics can be closed with a bearer token', async () => {
    const { app } = await appWith({ config: { metricsToken: 's3cret-token' } });
    expect((await app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer wrong' } })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer s3cret-token' } })).statusCode).toBe(200);
  });
});
