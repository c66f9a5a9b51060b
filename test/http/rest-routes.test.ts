/**
 * Every `/v1` route over `app.inject` against the real facade: a valid call, an invalid one, an
 * unauthenticated one and, for routes addressing an id, another tenant's id (404). Every response
 * — errors included — is checked against the schema the served OpenAPI document gives it.
 */
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MintedKey } from '../support/test-runtime.js';
import { createHttpTestApp, OpenApiResponseChecker, type HttpTestApp } from '../support/http/http-test-app.js';

type Method = 'GET' | 'POST' | 'DELETE';

let t: HttpTestApp;
let checker: OpenApiResponseChecker;
let alice: MintedKey; // tenant acme, writer
let bob: MintedKey; // tenant acme, writer (a second agent: beacons, diffs)
let mallory: MintedKey; // tenant globex, writer
let acmeAdmin: MintedKey;
let globexAdmin: MintedKey;
let checked = 0;

/** Calls the app and checks the answer against the OpenAPI schema of `pattern` (the documented path). */
async function call(
  method: Method,
  url: string,
  pattern: string,
  options: { key?: string | null; body?: unknown; rawBody?: string } = {},
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = {};
  if (options.key !== null) headers['x-hyphae-key'] = options.key ?? alice.key;
  if (options.body !== undefined || options.rawBody !== undefined) headers['content-type'] = 'application/json';
  const response = await t.app.inject({
    method,
    url,
    headers,
    ...(options.rawBody !== undefined ? { payload: options.rawBody } : options.body !== undefined ? { payload: JSON.stringify(options.body) } : {}),
  });
  checker.check(method, pattern, response);
  checked += 1;
  return response;
}

function errorCode(response: LightMyRequestResponse): string | undefined {
  return (response.json() as { error?: { code?: string } }).error?.code;
}

async function storeCell(key: string, body: Record<string, unknown> = {}): Promise<{ node_id: string; scene_id: string | null }> {
  const response = await call('POST', '/v1/cells', '/v1/cells', {
    key,
    body: { content: 'Deploys go blue/green behind the load balancer', cell_type: 'Decision', ...body },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

beforeAll(async () => {
  t = await createHttpTestApp();
  const documentResponse = await t.app.inject({ method: 'GET', url: '/openapi.json' });
  expect(documentResponse.statusCode).toBe(200);
  checker = new OpenApiResponseChecker(documentResponse.json());
  alice = await t.runtime.mintKey({ tenant: 'acme', agent: 'alice', roles: ['writer'] });
  bob = await t.runtime.mintKey({ tenant: 'acme', agent: 'bob', roles: ['writer'] });
  mallory = await t.runtime.mintKey({ tenant: 'globex', agent: 'mallory', roles: ['writer'] });
  acmeAdmin = await t.runtime.mintKey({ tenant: 'acme', agent: 'root', roles: ['admin'] });
  globexAdmin = await t.runtime.mintKey({ tenant: 'globex', agent: 'root', roles: ['admin'] });
});

afterAll(async () => {
  await t?.close();
});

describe('authentication on every /v1 route', () => {
  const routes: [Method, string, string, unknown?][] = [
    ['POST', '/v1/cells', '/v1/cells', { content: 'x', cell_type: 'Fact' }],
    ['GET', `/v1/cells/${randomUUID()}`, '/v1/cells/{id}'],
    ['GET', '/v1/cells', '/v1/cells'],
    ['GET', `/v1/cells/${randomUUID()}/history`, '/v1/cells/{id}/history'],
    ['DELETE', `/v1/cells?scene_id=${randomUUID()}`, '/v1/cells'],
    ['DELETE', `/v1/cells/${randomUUID()}`, '/v1/cells/{id}'],
    ['POST', '/v1/recall', '/v1/recall', { query: 'x' }],
    ['POST', '/v1/query', '/v1/query', { query: 'x', layer: 'L0' }],
    ['POST', '/v1/sessions', '/v1/sessions', { project: 'p' }],
    ['POST', `/v1/sessions/${randomUUID()}/close`, '/v1/sessions/{id}/close'],
    ['POST', '/v1/beacons', '/v1/beacons', { text: 'x' }],
    ['GET', '/v1/beacons', '/v1/beacons'],
    ['DELETE', `/v1/beacons/${randomUUID()}`, '/v1/beacons/{id}'],
    ['GET', '/v1/diffs?since=2026-01-01T00:00:00Z', '/v1/diffs'],
    ['POST', '/v1/inbox/drain', '/v1/inbox/drain', {}],
    ['GET', '/v1/scenes', '/v1/scenes'],
    ['GET', `/v1/scenes/${randomUUID()}`, '/v1/scenes/{id}'],
    ['POST', `/v1/scenes/${randomUUID()}/consolidate`, '/v1/scenes/{id}/consolidate'],
    ['POST', '/v1/admin/keys', '/v1/admin/keys', { tenant: 'acme', agent: 'x' }],
    ['GET', '/v1/admin/keys', '/v1/admin/keys'],
    ['DELETE', `/v1/admin/keys/${randomUUID()}`, '/v1/admin/keys/{id}'],
    ['POST', `/v1/admin/keys/${randomUUID()}/rotate`, '/v1/admin/keys/{id}/rotate'],
    ['DELETE', '/v1/admin/projects?project=p', '/v1/admin/projects'],
  ];

  it.each(routes)('%s %s without a key is 401 UNAUTHENTICATED', async (method, url, pattern, body) => {
    const response = await call(method, url, pattern, { key: null, ...(body === undefined ? {} : { body }) });
    expect(response.statusCode).toBe(401);
    expect(errorCode(response)).toBe('UNAUTHENTICATED');
  });

  it.each(routes)('%s %s with an unknown key is 401, even with an invalid body', async (method, url, pattern) => {
    const response = await call(method, url, pattern, { key: 'hy_not-a-real-key', ...(method === 'POST' ? { body: { nonsense: true } } : {}) });
    expect(response.statusCode).toBe(401);
    expect(errorCode(response)).toBe('UNAUTHENTICATED');
  });
});

describe('cells', () => {
  it('POST /v1/cells stores and answers 201 with the full node', async () => {
    const response = await call('POST', '/v1/cells', '/v1/cells', {
      body: {
        content: 'Use pgvector HNSW for recall',
        cell_type: 'Decision',
        salience: 0.9,
        source_ref: { kind: 'file', locator: 'docs/adr/7.md:3' },
        metadata: { ticket: 'ENG-7' },
      },
    });
    expect(response.statusCode).toBe(201);
    const node = response.json();
    expect(node).toMatchObject({
      content: 'Use pgvector HNSW for recall',
      cell_type: 'Decision',
      salience: 0.9,
      source_agent: 'alice',
      layer: 'L0',
      source_ref: { kind: 'file', locator: 'docs/adr/7.md:3' },
      metadata: { ticket: 'ENG-7' },
    });
    expect(node).not.toHaveProperty('tenant_id');
  });

  it('POST /v1/cells replays an idempotency key without storing twice', async () => {
    const first = await storeCell(alice.key, { idempotency_key: 'idem-1' });
    const second = await storeCell(alice.key, { idempotency_key: 'idem-1' });
    expect(second.node_id).toBe(first.node_id);
  });

  it('POST /v1/cells refuses a missing field, a bad enum, tenant_id and source_agent with field issues', async () => {
    const cases: [unknown, string][] = [
      [{ cell_type: 'Fact' }, 'body.content'],
      [{ content: 'x', cell_type: 'Gossip' }, 'body.cell_type'],
      [{ content: 'x', cell_type: 'Fact', salience: 2 }, 'body.salience'],
      [{ content: 'x', cell_type: 'Fact', tenant_id: 'globex' }, 'body'],
      [{ content: 'x', cell_type: 'Fact', source_agent: 'someone-else' }, 'body'],
    ];
    for (const [body, path] of cases) {
      const response = await call('POST', '/v1/cells', '/v1/cells', { body });
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      const error = response.json().error;
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.details.issues.map((issue: { path: string }) => issue.path)).toContain(path);
    }
  });

  it('POST /v1/cells refuses malformed JSON and a non-object body as INVALID_ARGUMENT', async () => {
    const malformed = await call('POST', '/v1/cells', '/v1/cells', { rawBody: '{"content":' });
    expect(malformed.statusCode).toBe(400);
    expect(errorCode(malformed)).toBe('INVALID_ARGUMENT');
    const array = await call('POST', '/v1/cells', '/v1/cells', { body: [1, 2] });
    expect(array.statusCode).toBe(400);
    const text = await t.app.inject({
      method: 'POST',
      url: '/v1/cells',
      headers: { 'x-hyphae-key': alice.key, 'content-type': 'text/plain' },
      payload: 'remember this',
    });
    expect(text.statusCode).toBe(400);
    expect(errorCode(text)).toBe('INVALID_ARGUMENT');
  });

  it('POST /v1/cells refuses content over 32 KiB as TOO_LARGE', async () => {
    const response = await call('POST', '/v1/cells', '/v1/cells', { body: { content: 'é'.repeat(17 * 1024), cell_type: 'Fact' } });
    expect(response.statusCode).toBe(413);
    expect(errorCode(response)).toBe('TOO_LARGE');
  });

  it('GET /v1/cells/{id} reads a node; a malformed id is 400; an unknown or foreign one 404', async () => {
    const { node_id } = await storeCell(alice.key);
    const ok = await call('GET', `/v1/cells/${node_id}`, '/v1/cells/{id}');
    expect(ok.statusCode).toBe(200);
    expect(ok.json().node_id).toBe(node_id);
    expect((await call('GET', '/v1/cells/not-a-uuid', '/v1/cells/{id}')).statusCode).toBe(400);
    const unknown = await call('GET', `/v1/cells/${randomUUID()}`, '/v1/cells/{id}');
    expect(unknown.statusCode).toBe(404);
    const foreign = await call('GET', `/v1/cells/${node_id}`, '/v1/cells/{id}', { key: mallory.key });
    expect(foreign.statusCode).toBe(404);
    expect(errorCode(foreign)).toBe('NOT_FOUND');
    // Indistinguishable from an id that never existed.
    expect(foreign.json().error.details).toEqual({ kind: 'cell', id: node_id });
    expect(unknown.json().error.details).toMatchObject({ kind: 'cell' });
  });

  it('GET /v1/cells filters, paginates with next_cursor, and shows nothing of another tenant', async () => {
    const lister = await t.runtime.mintKey({ tenant: 'acme', agent: 'lister', roles: ['writer'], default_project: 'listing' });
    for (const [i, cellType] of ['Risk', 'Risk', 'Risk', 'Fact'].entries()) await storeCell(lister.key, { cell_type: cellType, content: `about ${cellType} ${i}` });
    const first = await call('GET', '/v1/cells?project=listing&cell_type=Risk&limit=2', '/v1/cells', { key: lister.key });
    expect(first.statusCode).toBe(200);
    const page1 = first.json();
    expect(page1.cells).toHaveLength(2);
    expect(page1.cells.every((cell: { cell_type: string }) => cell.cell_type === 'Risk')).toBe(true);
    expect(page1.next_cursor).toEqual(expect.any(String));
    const second = await call('GET', `/v1/cells?project=listing&cell_type=Risk&limit=2&cursor=${encodeURIComponent(page1.next_cursor)}`, '/v1/cells', {
      key: lister.key,
    });
    const page2 = second.json();
    expect(page2.cells).toHaveLength(1);
    expect(page2.next_cursor).toBeNull();
    const ids = new Set([...page1.cells, ...page2.cells].map((cell: { node_id: string }) => cell.node_id));
    expect(ids.size).toBe(3);

    const foreign = await call('GET', '/v1/cells?project=listing', '/v1/cells', { key: mallory.key });
    expect(foreign.statusCode).toBe(200);
    expect(foreign.json().cells).toEqual([]);
  });

  it('GET /v1/cells refuses a bad limit, an unknown layer and an unknown parameter', async () => {
    for (const query of ['limit=0', 'limit=abc', 'limit=201', 'layer=L9', 'tenant_id=globex']) {
      const response = await call('GET', `/v1/cells?${query}`, '/v1/cells');
      expect(response.statusCode, query).toBe(400);
      expect(errorCode(response)).toBe('INVALID_ARGUMENT');
    }
  });

  it('DELETE /v1/cells/{id} answers the receipt and the node is gone; a foreign delete is 404 and deletes nothing', async () => {
    const { node_id } = await storeCell(alice.key);
    const foreign = await call('DELETE', `/v1/cells/${node_id}`, '/v1/cells/{id}', { key: mallory.key });
    expect(foreign.statusCode).toBe(404);
    expect((await call('GET', `/v1/cells/${node_id}`, '/v1/cells/{id}')).statusCode).toBe(200);
    const deleted = await call('DELETE', `/v1/cells/${node_id}`, '/v1/cells/{id}');
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toMatchObject({ selector: { kind: 'cell', node_id, include_history: false }, counts: { cells: 1, lexical_terms: 1 } });
    expect((await call('GET', `/v1/cells/${node_id}`, '/v1/cells/{id}')).statusCode).toBe(404);
    expect((await call('DELETE', `/v1/cells/${node_id}`, '/v1/cells/{id}')).statusCode).toBe(404);
    expect((await call('DELETE', '/v1/cells/nope', '/v1/cells/{id}')).statusCode).toBe(400);
  });
});

describe('bulk forgetting', () => {
  it('DELETE /v1/cells?source_ref=… forgets the caller\'s cells from that source and counts them; bad filters are 400', async () => {
    const locator = `docs/${randomUUID()}.md`;
    await storeCell(alice.key, { content: 'Deploys go blue/green', source_ref: { kind: 'file', locator } });
    await storeCell(alice.key, { content: 'Deploys are canaried first', source_ref: { kind: 'file', locator } });
    const foreign = await call('DELETE', `/v1/cells?source_ref=${encodeURIComponent(locator)}`, '/v1/cells', { key: mallory.key });
    expect(foreign.json()).toEqual({ deleted: 0, has_more: false });
    const forgotten = await call('DELETE', `/v1/cells?source_ref=${encodeURIComponent(locator)}&source_ref_kind=file&limit=1`, '/v1/cells');
    expect(forgotten.statusCode, forgotten.body).toBe(200);
    expect(forgotten.json()).toEqual({ deleted: 1, has_more: true });
    expect((await call('DELETE', `/v1/cells?source_ref=${encodeURIComponent(locator)}`, '/v1/cells')).json()).toEqual({ deleted: 1, has_more: false });
    expect((await call('DELETE', '/v1/cells', '/v1/cells')).statusCode).toBe(400);
    expect((await call('DELETE', '/v1/cells?scene_id=nope', '/v1/cells')).statusCode).toBe(400);
    expect((await call('DELETE', '/v1/cells?source_ref=x&limit=0', '/v1/cells')).statusCode).toBe(400);
  });
});

describe('restatements and recall controls', () => {
  it('an identical restatement reinforces its cell; the history keeps what the restating store carried', async () => {
    const content = `Release trains leave every second Tuesday (${randomUUID()})`;
    const original = await storeCell(alice.key, { content, cell_type: 'Decision' });
    const restated = await call('POST', '/v1/cells', '/v1/cells', {
      key: bob.key,
      body: { content: `  ${content.toUpperCase()}.  `, cell_type: 'Decision', metadata: { from: 'standup' }, source_ref: { kind: 'file', locator: 'notes/standup.md' } },
    });
    expect(restated.statusCode, restated.body).toBe(201);
    expect(restated.json()).toMatchObject({ node_id: original.node_id, reinforced: true, corroborations: 1, stated_by: ['alice', 'bob'] });
    const history = await call('GET', `/v1/cells/${original.node_id}/history`, '/v1/cells/{id}/history');
    expect(history.statusCode).toBe(200);
    expect(history.json()).toMatchObject({
      cells: [{ node_id: original.node_id, content }],
      corroborations: [{ node_id: original.node_id, agent: 'bob', content: `  ${content.toUpperCase()}.  `, similarity: 1, metadata: { from: 'standup' }, source_ref: { kind: 'file', locator: 'notes/standup.md' } }],
    });
  });

  it('POST /v1/recall takes a mode, filters and a recency bias, and answers scores beside distances', async () => {
    const marker = randomUUID().slice(0, 8);
    const tagged = await storeCell(alice.key, { content: `Error E4012 means the ledger rejected a transfer (${marker})`, cell_type: 'Fact', metadata: { team: marker } });
    await storeCell(alice.key, { content: `The ledger rejects transfers above the daily limit ${marker}`, cell_type: 'Fact' });
    const response = await call('POST', '/v1/recall', '/v1/recall', {
      body: { query: 'why did the ledger reject a transfer', k: 5, mode: 'lexical', metadata: { team: marker }, source_agents: ['alice'], recency_bias: 0.5 },
    });
    expect(response.statusCode, response.body).toBe(200);
    const results = (response.json() as { results: { node: { node_id: string }; distance: number; score: number }[] }).results;
    expect(results.map((r) => r.node.node_id)).toEqual([tagged.node_id]);
    expect(results[0]?.score).toBeGreaterThan(0);
    expect(errorCode(await call('POST', '/v1/recall', '/v1/recall', { body: { query: 'x', mode: 'fuzzy' } }))).toBe('INVALID_ARGUMENT');
  });
});

describe('supersession', () => {
  it('POST /v1/cells with supersedes replaces a cell; history, include_superseded and as_of read the chain', async () => {
    const old = await storeCell(alice.key, { content: 'Sessions live in Redis', cell_type: 'Decision' });
    const next = await storeCell(alice.key, { content: 'Sessions moved to PostgreSQL', cell_type: 'Decision', supersedes: old.node_id });
    expect(next).toMatchObject({ supersedes: old.node_id, superseded_by: null, valid_until: null });
    const closed = (await call('GET', `/v1/cells/${old.node_id}`, '/v1/cells/{id}')).json();
    expect(closed).toMatchObject({ superseded_by: next.node_id, valid_until: (next as unknown as { valid_from: string }).valid_from });

    const history = await call('GET', `/v1/cells/${next.node_id}/history`, '/v1/cells/{id}/history');
    expect(history.statusCode).toBe(200);
    expect((history.json() as { cells: { node_id: string }[] }).cells.map((c) => c.node_id)).toEqual([old.node_id, next.node_id]);
    expect((await call('GET', `/v1/cells/${next.node_id}/history`, '/v1/cells/{id}/history', { key: mallory.key })).statusCode).toBe(404);
    expect((await call('GET', '/v1/cells/nope/history', '/v1/cells/{id}/history')).statusCode).toBe(400);

    const recalled = async (extra: Record<string, unknown>): Promise<string[]> => {
      const response = await call('POST', '/v1/recall', '/v1/recall', { body: { query: 'Sessions live in Redis', k: 100, ...extra } });
      expect(response.statusCode, response.body).toBe(200);
      return (response.json() as { results: { node: { node_id: string } }[] }).results.map((r) => r.node.node_id);
    };
    expect(await recalled({})).not.toContain(old.node_id);
    expect(await recalled({})).toContain(next.node_id);
    expect(await recalled({ include_superseded: true })).toContain(old.node_id);
    const asOf = (closed as { valid_from: string }).valid_from;
    expect(await recalled({ as_of: asOf })).toContain(old.node_id);
    expect(await recalled({ as_of: asOf })).not.toContain(next.node_id);
    const both = await call('POST', '/v1/recall', '/v1/recall', { body: { query: 'x', include_superseded: true, as_of: asOf } });
    expect(both.statusCode).toBe(400);

    const listed = async (query: string): Promise<string[]> => {
      const response = await call('GET', `/v1/cells?limit=200${query}`, '/v1/cells');
      expect(response.statusCode, response.body).toBe(200);
      return (response.json() as { cells: { node_id: string }[] }).cells.map((c) => c.node_id);
    };
    expect(await listed('')).not.toContain(old.node_id);
    expect(await listed('&include_superseded=true')).toContain(old.node_id);
    const past = await call('GET', `/v1/cells/${next.node_id}?as_of=${encodeURIComponent(asOf)}`, '/v1/cells/{id}');
    expect((past.json() as { node_id: string }).node_id).toBe(old.node_id);
    expect((await call('GET', `/v1/cells/${next.node_id}?as_of=yesterday`, '/v1/cells/{id}')).statusCode).toBe(400);

    // Superseding it again is a conflict; a foreign tenant's supersedes is not found.
    const again = await call('POST', '/v1/cells', '/v1/cells', { body: { content: 'x', cell_type: 'Fact', supersedes: old.node_id } });
    expect(again.statusCode).toBe(409);
    const foreign = await call('POST', '/v1/cells', '/v1/cells', { key: mallory.key, body: { content: 'x', cell_type: 'Fact', supersedes: next.node_id } });
    expect(foreign.statusCode).toBe(404);
  });
});

describe('recall and query', () => {
  it('POST /v1/recall answers hydrated nodes closest first, never another tenant’s', async () => {
    const recaller = await t.runtime.mintKey({ tenant: 'acme', agent: 'recaller', default_project: 'recall-project' });
    const target = await storeCell(recaller.key, { content: 'The cache is invalidated on every deploy', cell_type: 'Fact' });
    await storeCell(recaller.key, { content: 'Lunch is at noon on Fridays', cell_type: 'Preference' });
    const foreignTwin = await t.runtime.mintKey({ tenant: 'globex', agent: 'twin', default_project: 'recall-project' });
    await storeCell(foreignTwin.key, { content: 'The cache is invalidated on every deploy', cell_type: 'Fact' });

    const response = await call('POST', '/v1/recall', '/v1/recall', {
      key: recaller.key,
      body: { query: 'The cache is invalidated on every deploy', k: 5 },
    });
    expect(response.statusCode).toBe(200);
    const { results } = response.json() as { results: { node: { node_id: string; source_agent: string }; distance: number }[] };
    expect(results[0]?.node.node_id).toBe(target.node_id);
    expect(results.map((hit) => hit.node.source_agent)).not.toContain('twin');
    const distances = results.map((hit) => hit.distance);
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
  });

  it('POST /v1/recall refuses k out of range and an empty query', async () => {
    for (const body of [{ query: 'x', k: 0 }, { query: 'x', k: 101 }, { query: '' }, { query: 'x', layer: 'L1' }]) {
      const response = await call('POST', '/v1/recall', '/v1/recall', { body });
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
    }
  });

  it('POST /v1/query searches the requested layer and needs one', async () => {
    const ok = await call('POST', '/v1/query', '/v1/query', { body: { query: 'deploys', layer: 'L0', k: 3 } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().results.every((hit: { node: { layer: string } }) => hit.node.layer === 'L0')).toBe(true);
    const l2 = await call('POST', '/v1/query', '/v1/query', { body: { query: 'deploys', layer: 'L2' } });
    expect(l2.statusCode).toBe(200);
    expect(l2.json().results.every((hit: { node: { layer: string } }) => hit.node.layer === 'L2')).toBe(true);
    expect((await call('POST', '/v1/query', '/v1/query', { body: { query: 'deploys' } })).statusCode).toBe(400);
  });
});

describe('sessions and scenes', () => {
  it('opens a session, stores into its scene, reads the scene with its cells, consolidates, closes idempotently', async () => {
    const carol = await t.runtime.mintKey({ tenant: 'acme', agent: 'carol' });
    const opened = await call('POST', '/v1/sessions', '/v1/sessions', { key: carol.key, body: { project: 'incident-42', title: 'Outage' } });
    expect(opened.statusCode).toBe(201);
    const { session_id, scene_id } = opened.json() as { session_id: string; scene_id: string };

    const first = await storeCell(carol.key, { content: 'The primary database ran out of disk at 02:00.', cell_type: 'Fact' });
    const second = await storeCell(carol.key, { content: 'Alerts on disk usage must page before 90 percent.', cell_type: 'Lesson' });
    expect(first.scene_id).toBe(scene_id);

    const scene = await call('GET', `/v1/scenes/${scene_id}`, '/v1/scenes/{id}', { key: carol.key });
    expect(scene.statusCode).toBe(200);
    const body = scene.json() as { title: string; project: string; cell_ids: string[]; cells: { node_id: string }[] };
    expect(body).toMatchObject({ title: 'Outage', project: 'incident-42' });
    expect(body.cell_ids.sort()).toEqual([first.node_id, second.node_id].sort());
    expect(body.cells.map((cell) => cell.node_id).sort()).toEqual([first.node_id, second.node_id].sort());

    const list = await call('GET', '/v1/scenes?project=incident-42', '/v1/scenes', { key: carol.key });
    expect(list.statusCode).toBe(200);
    expect(list.json().scenes.map((s: { scene_id: string }) => s.scene_id)).toContain(scene_id);

    const consolidated = await call('POST', `/v1/scenes/${scene_id}/consolidate`, '/v1/scenes/{id}/consolidate', { key: carol.key });
    expect(consolidated.statusCode).toBe(201);
    expect(consolidated.json()).toMatchObject({ layer: 'L1', project: 'incident-42' });

    const closed = await call('POST', `/v1/sessions/${session_id}/close`, '/v1/sessions/{id}/close', { key: carol.key });
    expect(closed.statusCode).toBe(200);
    expect(closed.json().session_id).toBe(session_id);
    const again = await call('POST', `/v1/sessions/${session_id}/close`, '/v1/sessions/{id}/close', { key: carol.key });
    expect(again.statusCode).toBe(200);

    // Another tenant: every id reads as not found.
    expect((await call('GET', `/v1/scenes/${scene_id}`, '/v1/scenes/{id}', { key: mallory.key })).statusCode).toBe(404);
    expect((await call('POST', `/v1/scenes/${scene_id}/consolidate`, '/v1/scenes/{id}/consolidate', { key: mallory.key })).statusCode).toBe(404);
    expect((await call('POST', `/v1/sessions/${session_id}/close`, '/v1/sessions/{id}/close', { key: mallory.key })).statusCode).toBe(404);
    const foreignList = await call('GET', '/v1/scenes?project=incident-42', '/v1/scenes', { key: mallory.key });
    expect(foreignList.json().scenes).toEqual([]);
  });

  it('refuses invalid session and scene requests', async () => {
    expect((await call('POST', '/v1/sessions', '/v1/sessions', { body: { project: '../etc' } })).statusCode).toBe(400);
    expect((await call('POST', '/v1/sessions', '/v1/sessions', { body: {} })).statusCode).toBe(400);
    expect((await call('POST', '/v1/sessions/123/close', '/v1/sessions/{id}/close')).statusCode).toBe(400);
    expect((await call('GET', '/v1/scenes?limit=-1', '/v1/scenes')).statusCode).toBe(400);
    expect((await call('GET', '/v1/scenes/xyz', '/v1/scenes/{id}')).statusCode).toBe(400);
    expect((await call('GET', `/v1/scenes/${randomUUID()}`, '/v1/scenes/{id}')).statusCode).toBe(404);
    expect((await call('POST', '/v1/scenes/xyz/consolidate', '/v1/scenes/{id}/consolidate')).statusCode).toBe(400);
  });
});

describe('beacons, diffs and the inbox', () => {
  it('a beacon of bob receives alice’s matching cell: pull by time, then drain', async () => {
    const text = 'Rotate the TLS certificates before they expire in March';
    const placed = await call('POST', '/v1/beacons', '/v1/beacons', { key: bob.key, body: { text, threshold: 0.5 } });
    expect(placed.statusCode).toBe(201);
    const beacon = placed.json() as { beacon_id: string; owner_agent: string };
    expect(beacon.owner_agent).toBe('bob');

    const since = new Date(Date.now() - 60_000).toISOString();
    const stored = await storeCell(alice.key, { content: text, cell_type: 'Task', salience: 0.9 });

    const pulled = await call('GET', `/v1/diffs?since=${encodeURIComponent(since)}&limit=50`, '/v1/diffs', { key: bob.key });
    expect(pulled.statusCode).toBe(200);
    const diffs = pulled.json().diffs as { node_id: string; beacon_id: string; op: string }[];
    expect(diffs).toContainEqual(expect.objectContaining({ node_id: stored.node_id, beacon_id: beacon.beacon_id, op: 'created' }));

    const drained = await call('POST', '/v1/inbox/drain', '/v1/inbox/drain', { key: bob.key, body: { page_size: 500 } });
    expect(drained.statusCode).toBe(200);
    expect(drained.json().diffs).toContainEqual(expect.objectContaining({ node_id: stored.node_id }));
    const empty = await call('POST', '/v1/inbox/drain', '/v1/inbox/drain', { key: bob.key });
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toEqual({ diffs: [], has_more: false });

    // Another tenant sees none of it.
    const foreign = await call('GET', `/v1/diffs?since=${encodeURIComponent(since)}`, '/v1/diffs', { key: mallory.key });
    expect(foreign.json().diffs).toEqual([]);
  });

  it('lists and deletes one’s beacons; another tenant’s beacon id is 404', async () => {
    const placed = await call('POST', '/v1/beacons', '/v1/beacons', { body: { text: 'anything about billing', cell_types: ['Risk'], ttl_seconds: 3600 } });
    expect(placed.statusCode).toBe(201);
    const { beacon_id } = placed.json() as { beacon_id: string };
    const list = await call('GET', '/v1/beacons?limit=200', '/v1/beacons');
    expect(list.statusCode).toBe(200);
    expect(list.json().beacons.map((b: { beacon_id: string }) => b.beacon_id)).toContain(beacon_id);
    expect((await call('GET', '/v1/beacons', '/v1/beacons', { key: mallory.key })).json().beacons).toEqual([]);
    expect((await call('DELETE', `/v1/beacons/${beacon_id}`, '/v1/beacons/{id}', { key: mallory.key })).statusCode).toBe(404);
    expect((await call('DELETE', `/v1/beacons/${beacon_id}`, '/v1/beacons/{id}')).statusCode).toBe(204);
    expect((await call('DELETE', `/v1/beacons/${beacon_id}`, '/v1/beacons/{id}')).statusCode).toBe(404);
  });

  it('refuses invalid beacon, diff and drain requests', async () => {
    expect((await call('POST', '/v1/beacons', '/v1/beacons', { body: { text: 'x', threshold: 1.5 } })).statusCode).toBe(400);
    expect((await call('POST', '/v1/beacons', '/v1/beacons', { body: { text: 'x', owner_agent: 'bob' } })).statusCode).toBe(400);
    expect((await call('GET', '/v1/beacons?limit=0', '/v1/beacons')).statusCode).toBe(400);
    expect((await call('DELETE', '/v1/beacons/1', '/v1/beacons/{id}')).statusCode).toBe(400);
    expect((await call('GET', '/v1/diffs', '/v1/diffs')).statusCode).toBe(400);
    expect((await call('GET', '/v1/diffs?since=yesterday', '/v1/diffs')).statusCode).toBe(400);
    expect((await call('GET', '/v1/diffs?since=2026-01-01T00:00:00Z&limit=501', '/v1/diffs')).statusCode).toBe(400);
    expect((await call('POST', '/v1/inbox/drain', '/v1/inbox/drain', { body: { page_size: 0 } })).statusCode).toBe(400);
  });
});

describe('admin keys', () => {
  it('an admin mints a key (clear key once), lists without secrets, revokes; the revoked key is 401', async () => {
    const created = await call('POST', '/v1/admin/keys', '/v1/admin/keys', {
      key: acmeAdmin.key,
      body: { tenant: 'acme', agent: 'ci-bot', roles: ['reader'], projects: ['web'], trust: 0.4 },
    });
    expect(created.statusCode).toBe(201);
    const key = created.json() as { key_id: string; key: string; agent: string; roles: string[] };
    expect(key).toMatchObject({ agent: 'ci-bot', roles: ['reader'] });
    expect(key.key.length).toBeGreaterThan(16);
    expect((await call('GET', '/v1/cells?project=web', '/v1/cells', { key: key.key })).statusCode).toBe(200);

    const list = await call('GET', '/v1/admin/keys', '/v1/admin/keys', { key: acmeAdmin.key });
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain(key.key);
    expect(list.json().keys.map((k: { key_id: string }) => k.key_id)).toContain(key.key_id);
    expect(list.json().keys.every((k: { tenant: string }) => k.tenant === 'acme')).toBe(true);

    expect((await call('DELETE', `/v1/admin/keys/${key.key_id}`, '/v1/admin/keys/{id}', { key: globexAdmin.key })).statusCode).toBe(404);
    expect((await call('DELETE', `/v1/admin/keys/${key.key_id}`, '/v1/admin/keys/{id}', { key: acmeAdmin.key })).statusCode).toBe(204);
    const revoked = await call('GET', '/v1/cells', '/v1/cells', { key: key.key });
    expect(revoked.statusCode).toBe(401);
  });

  it('is admin only: a writer gets 403 on every admin route', async () => {
    const create = await call('POST', '/v1/admin/keys', '/v1/admin/keys', { body: { tenant: 'acme', agent: 'sneaky', roles: ['admin'] } });
    expect(create.statusCode).toBe(403);
    expect(errorCode(create)).toBe('FORBIDDEN');
    expect((await call('GET', '/v1/admin/keys', '/v1/admin/keys')).statusCode).toBe(403);
    expect((await call('DELETE', `/v1/admin/keys/${alice.info.key_id}`, '/v1/admin/keys/{id}')).statusCode).toBe(403);
  });

  it('an admin cannot mint a key in another tenant', async () => {
    const response = await call('POST', '/v1/admin/keys', '/v1/admin/keys', { key: acmeAdmin.key, body: { tenant: 'globex', agent: 'spy' } });
    expect([403, 400]).toContain(response.statusCode);
  });

  it("DELETE /v1/admin/projects purges one project of the admin's tenant and counts it; writers get 403; another tenant's project of that name stays", async () => {
    const open = async (key: string): Promise<void> => {
      expect((await call('POST', '/v1/sessions', '/v1/sessions', { key, body: { project: 'purge-me' } })).statusCode).toBe(201);
    };
    await open(alice.key);
    const mine = await storeCell(alice.key, { content: 'a memory of the purged project', cell_type: 'Fact' });
    await open(mallory.key);
    const theirs = await storeCell(mallory.key, { content: 'a memory of the purged project', cell_type: 'Fact' });

    const denied = await call('DELETE', '/v1/admin/projects?project=purge-me', '/v1/admin/projects');
    expect(denied.statusCode).toBe(403);
    expect(errorCode(denied)).toBe('FORBIDDEN');
    const purged = await call('DELETE', '/v1/admin/projects?project=purge-me', '/v1/admin/projects', { key: acmeAdmin.key });
    expect(purged.statusCode).toBe(200);
    expect(purged.json()).toEqual({ project: 'purge-me', cells: 1, scenes: 1, sessions: 1, beacons: 0, diffs: 0, receipt: expect.objectContaining({ selector: { kind: 'project', project: 'purge-me' } }) });
    expect((await call('GET', `/v1/cells/${mine.node_id}`, '/v1/cells/{id}')).statusCode).toBe(404);
    expect((await call('GET', `/v1/cells/${theirs.node_id}`, '/v1/cells/{id}', { key: mallory.key })).statusCode).toBe(200);
    expect((await call('DELETE', '/v1/admin/projects', '/v1/admin/projects', { key: acmeAdmin.key })).statusCode).toBe(400);
    expect((await call('DELETE', '/v1/admin/projects?project=%20bad', '/v1/admin/projects', { key: acmeAdmin.key })).statusCode).toBe(400);
  });

  it('refuses invalid key requests', async () => {
    const bad = await call('POST', '/v1/admin/keys', '/v1/admin/keys', { key: acmeAdmin.key, body: { tenant: 'acme', agent: 'x', roles: ['root'] } });
    expect(bad.statusCode).toBe(400);
    expect((await call('DELETE', '/v1/admin/keys/zzz', '/v1/admin/keys/{id}', { key: acmeAdmin.key })).statusCode).toBe(400);
  });
});

describe('the document itself', () => {
  it('checked every response above against its documented schema', () => {
    expect(checked).toBeGreaterThan(100);
  });
});
