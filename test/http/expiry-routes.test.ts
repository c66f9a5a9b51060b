/**
 * Expiry over REST (docs/expiry.md): `POST /v1/cells` takes `expires_at` or `ttl_seconds` and
 * answers the cell's `expires_at`; a past instant, both fields, or a lifetime out of bounds is
 * `400 INVALID_ARGUMENT` naming the field, with nothing stored; a type's default retention
 * (HYPHAE_RETENTION_DEFAULTS) applies when the store names none. Responses match the OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkedCaller, createHttpTestApp, OpenApiResponseChecker, type HttpTestApp } from '../support/http/http-test-app.js';
import type { MintedKey } from '../support/test-runtime.js';

let t: HttpTestApp;
let checker: OpenApiResponseChecker;
let writer: MintedKey;

const call = checkedCaller(
  () => t.app,
  () => checker,
);

beforeAll(async () => {
  t = await createHttpTestApp({ runtime: { facade: { retentionDefaults: { Task: 30 * 86_400 } } } });
  checker = new OpenApiResponseChecker((await t.app.inject({ method: 'GET', url: '/openapi.json' })).json());
  writer = await t.runtime.mintKey({ tenant: 'acme', agent: 'alice' });
});
afterAll(async () => t?.close());

const stored = async (): Promise<string[]> =>
  ((await call('GET', '/v1/cells?limit=100', '/v1/cells', writer.key)).json() as { cells: { content: string }[] }).cells.map((c) => c.content);

describe('expiry over REST', () => {
  it('stores with ttl_seconds or expires_at and answers when the cell expires', async () => {
    const before = Date.now();
    const byTtl = await call('POST', '/v1/cells', '/v1/cells', writer.key, { content: 'lives an hour', cell_type: 'Fact', ttl_seconds: 3600 });
    expect(byTtl.statusCode, byTtl.body).toBe(201);
    const ttlExpiry = Date.parse((byTtl.json() as { expires_at: string }).expires_at);
    expect(ttlExpiry).toBeGreaterThanOrEqual(before + 3_600_000);
    expect(ttlExpiry).toBeLessThanOrEqual(Date.now() + 3_600_000);

    const at = new Date(Date.now() + 86_400_000).toISOString();
    const byInstant = await call('POST', '/v1/cells', '/v1/cells', writer.key, { content: 'lives a day', cell_type: 'Fact', expires_at: at });
    expect(byInstant.statusCode, byInstant.body).toBe(201);
    expect(Date.parse((byInstant.json() as { expires_at: string }).expires_at)).toBe(Date.parse(at));

    const kept = await call('POST', '/v1/cells', '/v1/cells', writer.key, { content: 'kept', cell_type: 'Fact' });
    expect((kept.json() as { expires_at: string | null }).expires_at).toBeNull();
  });

  it.each([
    ['a past instant', { expires_at: '2001-01-01T00:00:00Z' }, 'expires_at'],
    ['both fields', { expires_at: '2999-01-01T00:00:00Z', ttl_seconds: 60 }, 'ttl_seconds'],
    ['a lifetime of 0 s', { ttl_seconds: 0 }, 'ttl_seconds'],
    ['a lifetime past 100 years', { ttl_seconds: 3_155_760_001 }, 'ttl_seconds'],
    ['an instant past 100 years', { expires_at: '9000-01-01T00:00:00Z' }, 'expires_at'],
    ['a fractional lifetime', { ttl_seconds: 1.5 }, 'ttl_seconds'],
    ['an instant that is no date', { expires_at: 'tomorrow' }, 'expires_at'],
  ])('refuses %s with 400 INVALID_ARGUMENT naming the field, storing nothing', async (_what, expiry, field) => {
    const content = `refused ${field} ${JSON.stringify(expiry)}`;
    const response = await call('POST', '/v1/cells', '/v1/cells', writer.key, { content, cell_type: 'Fact', ...expiry });
    expect(response.statusCode, response.body).toBe(400);
    const { error } = response.json() as { error: { code: string; details: { issues: { path: string }[] } } };
    expect(error.code).toBe('INVALID_ARGUMENT');
    // The route's schema names a field under body; the facade's own checks name it alone.
    expect(error.details.issues.map((issue) => issue.path.replace(/^body\./, ''))).toContain(field);
    expect(await stored()).not.toContain(content);
  });

  it("applies a type's default retention when the store names no expiry, and a store's own over it", async () => {
    const before = Date.now();
    const task = (await call('POST', '/v1/cells', '/v1/cells', writer.key, { content: 'ship the release notes', cell_type: 'Task' })).json() as {
      expires_at: string;
    };
    expect(Date.parse(task.expires_at)).toBeGreaterThanOrEqual(before + 30 * 86_400_000);
    const own = (await call('POST', '/v1/cells', '/v1/cells', writer.key, { content: 'a short task', cell_type: 'Task', ttl_seconds: 60 })).json() as {
      expires_at: string;
    };
    expect(Date.parse(own.expires_at)).toBeLessThanOrEqual(Date.now() + 60_000);
    const fact = (await call('POST', '/v1/cells', '/v1/cells', writer.key, { content: 'a fact has no default', cell_type: 'Fact' })).json() as {
      expires_at: string | null;
    };
    expect(fact.expires_at).toBeNull();
  });
});
