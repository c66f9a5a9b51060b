/**
 * The admin export and import over REST (docs/rest.md): an admin exports its tenant as a stream
 * of JSON Lines and imports it into another server, idempotently; the tenant is the key's, never
 * the body's; a file too big for the server's JSON limit is taken by the import route alone; the
 * responses are what the OpenAPI document says.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpTestApp, OpenApiResponseChecker, type HttpTestApp } from '../support/http/http-test-app.js';
import { freshTenant } from '../support/facade-expectations.js';

describe('REST export and import', { timeout: 120_000 }, () => {
  let source: HttpTestApp;
  let target: HttpTestApp;
  let checker: OpenApiResponseChecker;
  let tenant: string;
  let adminKey: string;
  let targetAdminKey: string;

  beforeAll(async () => {
    source = await createHttpTestApp();
    target = await createHttpTestApp();
    checker = new OpenApiResponseChecker((await source.app.inject({ method: 'GET', url: '/openapi.json' })).json());
    tenant = freshTenant('rest');
    adminKey = (await source.runtime.mintKey({ tenant, agent: 'admin', roles: ['admin'] })).key;
    const writer = await source.runtime.principal({ tenant, agent: 'writer', default_project: 'web' });
    await source.runtime.facade.store(writer, { content: 'The web front end is served by nginx', cell_type: 'Fact', salience: 0.5 });
    await source.runtime.facade.placeBeacon(writer, { text: 'nginx configuration', include_own: false });
    targetAdminKey = (await target.runtime.mintKey({ tenant, agent: 'admin', roles: ['admin'] })).key;
  });
  afterAll(async () => {
    await source?.close();
    await target?.close();
  });

  const exportOf = async (app: HttpTestApp, key: string, query = ''): Promise<string> => {
    const response = await app.app.inject({ method: 'GET', url: `/v1/admin/export${query}`, headers: { 'x-hyphae-key': key } });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('application/x-ndjson');
    return response.body;
  };
  const importInto = (app: HttpTestApp, key: string, body: string, query = ''): Promise<LightMyRequestResponse> =>
    app.app.inject({ method: 'POST', url: `/v1/admin/import${query}`, headers: { 'x-hyphae-key': key, 'content-type': 'application/x-ndjson' }, payload: body });

  it("streams the caller's tenant and imports it into another server, twice without change", async () => {
    const body = await exportOf(source, adminKey, '?with_vectors=true');
    const lines = body.trim().split('\n').map((line) => JSON.parse(line) as { type: string; tenant?: string });
    expect(lines[0]).toMatchObject({ type: 'header', scope: { tenant, project: null }, vectors: true });
    expect(lines.at(-1)?.type).toBe('end');
    expect(new Set(lines.filter((l) => l.tenant !== undefined).map((l) => l.tenant))).toEqual(new Set([tenant]));

    const first = await importInto(target, targetAdminKey, body);
    expect(first.statusCode, first.body).toBe(200);
    checker.check('POST', '/v1/admin/import', first);
    // The target already held the tenant and its admin key; the source's two keys and everything else are added.
    expect(first.json()).toMatchObject({ format: 'hyphae', version: 4, vectors_from_file: true, records: { cell: { in_file: 1, added: 1 }, key: { in_file: 2, added: 2 }, tenant: { in_file: 1, added: 0 } } });
    const second = await importInto(target, targetAdminKey, body);
    expect(Object.values((second.json() as { records: Record<string, { added: number }> }).records).every((r) => r.added === 0)).toBe(true);
    const recall = await target.app.inject({ method: 'POST', url: '/v1/recall', headers: { 'x-hyphae-key': adminKey }, payload: { query: 'which server serves the web front end' } });
    expect(recall.statusCode, recall.body).toBe(200);
  });

  it('refuses a file of another tenant, an anonymous caller and a non-admin key', async () => {
    const body = await exportOf(source, adminKey);
    const stranger = (await target.runtime.mintKey({ tenant: freshTenant('stranger'), agent: 'admin', roles: ['admin'] })).key;
    const foreign = await importInto(target, stranger, body);
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toMatchObject({ error: { code: 'FORBIDDEN' } });
    expect((await importInto(target, 'hy_not-a-real-key-at-all', body)).statusCode).toBe(401);
    const writer = (await target.runtime.mintKey({ tenant, agent: 'w', roles: ['writer'] })).key;
    expect((await importInto(target, writer, body)).statusCode).toBe(403);
    expect((await target.app.inject({ method: 'GET', url: '/v1/admin/export', headers: { 'x-hyphae-key': writer } })).statusCode).toBe(403);
    const cut = await importInto(target, targetAdminKey, body.slice(0, body.lastIndexOf('{"type":"end"')));
    expect(cut.statusCode).toBe(400);
    expect(cut.json()).toMatchObject({ error: { code: 'INVALID_ARGUMENT' } });
  });

  it('refuses a malformed evidence line with a 400 naming the line, nothing written', async () => {
    const lines = (await exportOf(source, adminKey)).trim().split('\n');
    const evidence = { type: 'evidence', tenant, evidence_id: '7e0b7c3e-0f5d-4a4e-9a51-2d1c5f7a9b10', node_id: '4b1e2b8a-6c3f-4f3e-8d2a-1f0e9c8b7a65', weight: 2, trust: 0.5, agent: 'writer', label: 'agent', request_id: 'r', query_text: 'q', created_at: '2026-12-01T00:00:00.000000Z' };
    const end = lines.length - 1;
    const body = [...lines.slice(0, end), JSON.stringify(evidence), (lines[end] as string).replace('"evidence":0', '"evidence":1')].join('\n');
    const tenantBefore = (await exportOf(target, targetAdminKey)).length;
    const response = await importInto(target, targetAdminKey, body);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ error: { code: 'INVALID_ARGUMENT', message: expect.stringContaining(`line ${end + 1}: not a valid evidence line: weight`) } });
    expect((await exportOf(target, targetAdminKey)).length).toBe(tenantBefore);
  });

  it("takes a body larger than the server's JSON limit on the import route (a mem0 file), and no body at all clearly", async () => {
    const memories = Array.from({ length: 1200 }, (_, i) => ({ id: `m-${i}`, memory: `Remembered fact number ${i}: ${'detail '.repeat(40)}`, user_id: 'u' }));
    const payload = JSON.stringify({ results: memories });
    expect(payload.length).toBeGreaterThan(256 * 1024);
    const response = await target.app.inject({
      method: 'POST',
      url: '/v1/admin/import?format=mem0&project=notes',
      headers: { 'x-hyphae-key': targetAdminKey, 'content-type': 'application/json' },
      payload,
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ format: 'mem0', records: { cell: { in_file: 1200, added: 1200 } } });
    const empty = await target.app.inject({ method: 'POST', url: '/v1/admin/import', headers: { 'x-hyphae-key': targetAdminKey } });
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toMatchObject({ error: { code: 'INVALID_ARGUMENT', message: 'the request body is empty: an export starts with its header line' } });
  });
});
