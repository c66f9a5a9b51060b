/**
 * Property-based fuzzing of every REST route and every MCP tool (over HTTP) with the inputs a
 * database refuses or a serialiser overflows on: NUL characters, lone surrogates, JSON nested
 * thousands deep, impossible dates and offsets, forged cursors, over-long path ids. Each call
 * starts from a valid request and poisons one or two fields, so it gets past the obvious checks
 * and reaches the facade and the database. Whatever comes in, the answer is never a 5xx, and
 * every error is the documented shape.
 */
import fc from 'fast-check';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCP_TOOLS } from '../../src/mcp/features/tools/tool-registry.js';
import { REST_ROUTES } from '../../src/http/rest/rest-routes.js';
import { ERROR_CODES } from '../../src/http/error-reply.js';
import type { MintedKey } from '../support/test-runtime.js';
import { createHttpTestApp, type HttpTestApp } from '../support/http/http-test-app.js';
import { STATELESS_VERSION, statelessHeaders, statelessMeta } from '../support/mcp/stateless-client.js';

const DEPTH = 6_000;
const deepArray = `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`;
const deepObject = `${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}`;
const forgedCursor = (createdAt: string): string =>
  Buffer.from(JSON.stringify([createdAt, '00000000-0000-4000-8000-000000000000']), 'utf8').toString('base64url');

const IMPOSSIBLE_DATES = [
  '2024-13-45T25:61:61Z',
  '0000-01-01T00:00:00Z',
  '2024-02-30T00:00:00Z',
  '2023-02-29T00:00:00Z',
  '2024-01-01T00:00:00+16:00',
  '2024-01-01T00:00:00-23:59',
  '2024-01-01T24:00:00Z',
  '9999-12-31T23:59:60Z',
];

/** Strings that are valid JSON text but poison a database or a parser. */
const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('\u0000', 'a\u0000b', '\ud800', 'x\udfffy', '\udc00\ud800', '\ud83d', 'ok\u0000', ...IMPOSSIBLE_DATES),
  fc.constantFrom(...IMPOSSIBLE_DATES.map(forgedCursor), forgedCursor('not a date'), 'a'.repeat(70_000)),
  fc.string({ unit: fc.constantFrom('\u0000', '\ud800', '\udc00', 'a', 'é', '😀', '\\', '"', '%'), minLength: 1, maxLength: 40 }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
);

/** One hostile JSON value as raw text (deep nesting cannot go through JSON.stringify). */
const hostileJsonText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: hostileString.map((s) => JSON.stringify(s)) },
  { weight: 1, arbitrary: fc.constantFrom(deepArray, deepObject, '1e400', '-0', '[]', '{}', 'null', 'true', '18446744073709551617') },
  {
    weight: 2,
    arbitrary: fc
      .tuple(hostileString, hostileString)
      .map(([key, value]) => `{${JSON.stringify(key)}:${JSON.stringify(value)},"nested":{"deep":${deepArray}}}`),
  },
  { weight: 1, arbitrary: hostileString.map((key) => `{${JSON.stringify(key)}:1}`) },
);

/** A query-string value as a client might send it: raw percent sequences included. */
const hostileQueryValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('%00', 'a%00b', '%ED%A0%80', '%FF%FE', '%', '%E0%A4%A', '0', '-1', '1e400', 'NaN'),
  fc.constantFrom(...IMPOSSIBLE_DATES, ...IMPOSSIBLE_DATES.map(forgedCursor)).map(encodeURIComponent),
  fc.string({ unit: fc.constantFrom('a', 'é', '😀', ' ', '&', '='), maxLength: 30 }).map(encodeURIComponent),
);

/** A path id: a UUID-shaped forgery, junk, or far longer than the router allows. */
const hostilePathId: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('a'.repeat(5_000), '%00', '%ED%A0%80', '..%2F..%2Fetc', '00000000-0000-4000-8000-00000000000%00', '%'),
  fc.uuid(),
  fc.string({ unit: fc.constantFrom('a', '0', '-', '%20', '😀'), maxLength: 60 }).map((s) => encodeURI(s)),
);

interface Fixtures {
  readonly sceneId: string;
  readonly sessionId: string;
  readonly cellId: string;
  readonly requestId: string;
}

/**
 * Valid bodies per route (what the fuzzer poisons), keyed by operationId; fields as JSON text.
 * Fields that exclude each other (as_of / include_superseded, scene_id / source_ref) go in
 * separate variants, so each variant gets past the facade's own checks; together the variants
 * name every field of the route's schema (checked below).
 */
function validBodies(f: Fixtures): Record<string, readonly Record<string, string>[]> {
  const j = JSON.stringify;
  const search = {
    query: j('payments'),
    k: '5',
    cell_types: j(['Fact']),
    scene_id: j(f.sceneId),
    mode: j('hybrid'),
    metadata: j({ source: 'fuzz' }),
    source_agents: j(['fuzzer']),
    created_after: j('2000-01-01T00:00:00Z'),
    created_before: j('2100-01-01T00:00:00Z'),
    min_trust: '0.1',
    recency_bias: '0.5',
    kind: j('all'),
    num_related_chunks: '2',
    graph_context: 'true',
  };
  return {
    storeCell: [
      {
        content: j('a memory about payments'),
        cell_type: j('Fact'),
        salience: '0.5',
        metadata: j({ source: 'fuzz' }),
        source_ref: j({ kind: 'file', locator: 'a.md:1' }),
        idempotency_key: j('k1'),
        scene_id: j(f.sceneId),
        ttl_seconds: '3600',
      },
      { content: j('a newer memory about payments'), cell_type: j('Fact'), supersedes: j(f.cellId), relations: j([{ to: f.cellId, type: 'answers' }]), expires_at: j('2099-01-01T00:00:00Z') },
    ],
    addCellRelations: [{ relations: j([{ to: f.cellId, type: 'depends_on' }]) }],
    recall: [
      { ...search, include_superseded: 'true', project: j('fuzz') },
      { ...search, as_of: j('2030-01-01T00:00:00Z') },
    ],
    query: [
      { ...search, layer: j('L0'), include_superseded: 'false', project: j('fuzz') },
      { ...search, layer: j('L1'), as_of: j('2020-01-01T00:00:00Z') },
    ],
    openSession: [{ project: j('fuzz'), title: j('a title') }],
    placeBeacon: [
      { text: j('payments'), threshold: '0.5', project: j('fuzz'), ttl_seconds: '60', scene_id: j(f.sceneId), cell_types: j(['Fact']), include_own: 'true' },
    ],
    drainInbox: [{ page_size: '10' }],
    createKey: [{ tenant: j('fuzz'), agent: j('other'), roles: j(['reader']), projects: j(['fuzz']), default_project: j('fuzz'), trust: '0.5' }],
    ingestSource: [
      {
        text: j('# Payments\n\nA document about payments.'),
        format: j('markdown'),
        kind: j('knowledge'),
        title: j('Payments'),
        source_id: j('fuzz-doc'),
        ttl_seconds: '3600',
        expires_at: j('2099-01-01T00:00:00Z'),
        overwrite: 'true',
        metadata: j({ source: 'fuzz' }),
        observation_date: j('2026-07-04'),
        project: j('fuzz'),
      },
      { turns: j([{ user: 'hello', assistant: 'hi' }]), user_name: j('Ana'), source_id: j('fuzz-chat') },
    ],
    submitFeedback: [
      { request_id: j(f.requestId), rating: j('negative'), feedback: j('missed it'), ground_truth_answer: j('retried'), ground_truth_ids: j([f.cellId]), metadata: j({ run: 'fuzz' }) },
    ],
  };
}

function validQueries(f: Fixtures): Record<string, readonly Record<string, string>[]> {
  const cursor = forgedCursor('2020-01-01T00:00:00Z');
  const listing = { project: 'fuzz', scene_id: f.sceneId, cell_type: 'Fact', layer: 'L0', author: 'fuzzer', limit: '5', cursor };
  return {
    getCell: [{ as_of: '2030-01-01T00:00:00Z' }],
    getScene: [{ include_superseded: 'true' }, { as_of: '2030-01-01T00:00:00Z' }],
    listCells: [
      { ...listing, include_superseded: 'true' },
      { ...listing, as_of: '2030-01-01T00:00:00Z' },
    ],
    forgetCells: [
      { scene_id: f.sceneId, limit: '5' },
      { source_ref: 'a.md:1', source_ref_kind: 'file', limit: '5' },
    ],
    listBeacons: [{ limit: '5', cursor }],
    pullDiffs: [{ since: '2020-01-01T00:00:00Z', limit: '5' }],
    listScenes: [{ project: 'fuzz', limit: '5', cursor }],
    // A project that holds nothing: a valid purge must not erase the fixtures the other routes use.
    purgeProject: [{ project: 'fuzz-purged' }],
    recentGossip: [{ recipient: 'other', limit: '5' }],
    listSources: [{ kind: 'knowledge', project: 'fuzz', limit: '5', cursor: Buffer.from(JSON.stringify(['2020-01-01T00:00:00.000000Z', 'a'])).toString('base64url') }],
    readSource: [{ project: 'fuzz', offset: '3', limit: '100', link: 'a.b' }],
    sourceStatus: [{ project: 'fuzz' }],
    sourceChunks: [{ project: 'fuzz', version: 'served', limit: '5', cursor: Buffer.from('chunk:3').toString('base64url') }],
    deleteSource: [{ project: 'fuzz' }],
    deleteCellRelation: [{ to: f.cellId, type: 'depends_on' }],
    deleteCell: [{ include_history: 'true' }],
    feedbackQuality: [{ days: '7', worst: '5' }],
    eraseTenant: [{ confirmation: 'A'.repeat(43) }],
    listErasureReceipts: [{ limit: '5', cursor: 'not-a-cursor' }],
    getCellSubgraph: [{ depth: '3', max_members: '50', relation_types: 'answers,in_scene', as_of: '2030-01-01T00:00:00Z' }],
  };
}

/** The property names of a zod schema as a client sends them. */
function fieldsOf(schema: z.ZodType | undefined): string[] {
  if (schema === undefined) return [];
  return Object.keys((z.toJSONSchema(schema, { io: 'input' }) as { properties?: Record<string, unknown> }).properties ?? {}).sort();
}

const namedIn = (variants: readonly Record<string, string>[] | undefined): string[] =>
  [...new Set((variants ?? []).flatMap((variant) => Object.keys(variant)))].sort();

function objectText(fields: Record<string, string>): string {
  return `{${Object.entries(fields)
    .map(([name, text]) => `${JSON.stringify(name)}:${text}`)
    .join(',')}}`;
}

function expectDocumentedError(status: number, body: string, context: string): void {
  expect(status, context).toBeLessThan(500);
  if (status < 400 || body.length === 0) return;
  const parsed = JSON.parse(body) as { error?: { code?: unknown; message?: unknown } };
  expect(ERROR_CODES, `${context}\n${body.slice(0, 300)}`).toContain(parsed.error?.code);
  expect(typeof parsed.error?.message, context).toBe('string');
}

let http: HttpTestApp;
let writer: MintedKey;
let admin: MintedKey;
let fixtures: Fixtures;

beforeAll(async () => {
  http = await createHttpTestApp({ logLevel: 'silent' });
  writer = await http.runtime.mintKey({ tenant: 'fuzz', agent: 'writer', projects: ['fuzz'], default_project: 'fuzz' });
  admin = await http.runtime.mintKey({ tenant: 'fuzz', agent: 'admin', roles: ['admin', 'writer'], projects: ['*'], default_project: 'fuzz' });
  const opened = await http.runtime.facade.openSession(writer.principal, { project: 'fuzz', title: 'fuzz scene' });
  const cell = await http.runtime.facade.store(writer.principal, { content: 'payments are retried', cell_type: 'Fact', salience: 0.5 });
  const { request_id } = await http.runtime.facade.recall(writer.principal, { query: 'payments', k: 3 });
  fixtures = { sceneId: opened.scene_id, sessionId: opened.session_id, cellId: cell.node_id, requestId: request_id };
});

afterAll(async () => {
  await http?.close();
});

describe('REST: hostile input never yields a 5xx', () => {
  it('the fuzzer knows every body and query field of every route (a new field or route is fuzzed, or this fails)', () => {
    const bodies = validBodies(fixtures);
    const queries = validQueries(fixtures);
    for (const route of REST_ROUTES) {
      expect(namedIn(bodies[route.operationId]), `${route.operationId} body`).toEqual(fieldsOf(route.schemas.body));
      expect(namedIn(queries[route.operationId]), `${route.operationId} query`).toEqual(fieldsOf(route.schemas.query));
    }
  });

  it('poisons one or two fields of a valid request to every route, path, query and body alike', async () => {
    const bodies = validBodies(fixtures);
    const queries = validQueries(fixtures);
    const routes = REST_ROUTES;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.array(fc.tuple(fc.nat(), hostileJsonText, hostileQueryValue), { minLength: 1, maxLength: 2 }),
        fc.boolean(),
        fc.option(hostilePathId, { nil: undefined }),
        fc.nat(),
        async (route, poisons, asAdmin, pathId, variant) => {
          const validId = route.url.includes('/sessions/') ? fixtures.sessionId : route.url.startsWith('/v1/cells/') ? fixtures.cellId : fixtures.sceneId;
          const url = route.url.replace(':id', pathId ?? validId);
          const pick = (variants: readonly Record<string, string>[] | undefined): Record<string, string> => ({ ...(variants?.[variant % variants.length] ?? {}) });
          const body = pick(bodies[route.operationId]);
          const query = pick(queries[route.operationId]);
          const bodyNames = Object.keys(body);
          const queryNames = Object.keys(query);
          for (const [index, jsonText, queryValue] of poisons) {
            if (bodyNames.length > 0) body[bodyNames[index % bodyNames.length] as string] = jsonText;
            if (queryNames.length > 0) query[queryNames[index % queryNames.length] as string] = queryValue;
          }
          const search = Object.entries(query)
            .map(([name, value]) => `${name}=${value}`)
            .join('&');
          const response = await http.app.inject({
            method: route.method,
            url: search === '' ? url : `${url}?${search}`,
            headers: { 'x-hyphae-key': (asAdmin ? admin : writer).key, 'content-type': 'application/json' },
            ...(route.method === 'POST' ? { payload: objectText(body) } : {}),
          });
          expectDocumentedError(response.statusCode, response.body, `${route.method} ${url.slice(0, 80)} ${objectText(body).slice(0, 200)}`);
        },
      ),
      { numRuns: 600, seed: 13 },
    );
  });

  it('GET /v1/sources with a cursor naming no real instant (year 0000) is a 400 on cursor, not a 500', async () => {
    const cursor = Buffer.from(JSON.stringify(['0000-01-01T00:00:00Z', 'a'])).toString('base64url');
    const response = await http.app.inject({ method: 'GET', url: `/v1/sources?cursor=${cursor}`, headers: { 'x-hyphae-key': writer.key } });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().error.details.issues.map((i: { path: string }) => i.path)).toContain('cursor');
  });

  it.each([
    ['content with NUL', { content: 'a\u0000b', cell_type: 'Fact' }, 'content'],
    ['content with a lone surrogate', { content: 'a\ud800b', cell_type: 'Fact' }, 'content'],
    ['metadata key with NUL', { content: 'x', cell_type: 'Fact', metadata: { 'k\u0000': 1 } }, 'metadata'],
    ['metadata value with a lone surrogate', { content: 'x', cell_type: 'Fact', metadata: { k: 'x\udc00' } }, 'metadata'],
    ['idempotency_key with NUL', { content: 'x', cell_type: 'Fact', idempotency_key: 'a\u0000' }, 'idempotency_key'],
    ['idempotency_key in the imported: namespace', { content: 'x', cell_type: 'Fact', idempotency_key: 'imported:k' }, 'idempotency_key'],
    ['source_ref with NUL', { content: 'x', cell_type: 'Fact', source_ref: { kind: 'file', locator: 'a\u0000' } }, 'source_ref.locator'],
  ])('store refuses %s as a 400 naming the field', async (_name, body, field) => {
    const response = await http.app.inject({
      method: 'POST',
      url: '/v1/cells',
      headers: { 'x-hyphae-key': writer.key, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().error.details.issues.map((i: { path: string }) => i.path)).toContain(`body.${field}`);
  });

  it('refuses metadata nested 6,000 deep (under the size limit) as a 400', async () => {
    const response = await http.app.inject({
      method: 'POST',
      url: '/v1/cells',
      headers: { 'x-hyphae-key': writer.key, 'content-type': 'application/json' },
      payload: `{"content":"x","cell_type":"Fact","metadata":{"k":${deepArray}}}`,
    });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().error.details.issues[0].path).toBe('body.metadata');
  });

  it.each(['/v1/cells', '/v1/scenes', '/v1/beacons'])('refuses forged cursors with impossible dates on %s as a 400', async (url) => {
    for (const date of IMPOSSIBLE_DATES) {
      const response = await http.app.inject({ method: 'GET', url: `${url}?cursor=${forgedCursor(date)}`, headers: { 'x-hyphae-key': writer.key } });
      expect(response.statusCode, `${date}: ${response.body}`).toBe(400);
      expect(response.json().error.code).toBe('INVALID_ARGUMENT');
    }
  });

  it('refuses pull_diffs since an impossible instant or offset as a 400, and accepts the extremes PostgreSQL can hold', async () => {
    for (const since of IMPOSSIBLE_DATES) {
      const response = await http.app.inject({ method: 'GET', url: `/v1/diffs?since=${encodeURIComponent(since)}`, headers: { 'x-hyphae-key': writer.key } });
      expect(response.statusCode, `${since}: ${response.body}`).toBe(400);
    }
    for (const since of ['0001-01-01T00:00:00Z', '9999-12-31T23:59:59-15:59', '2024-02-29T12:00:00.123456+15:59']) {
      const response = await http.app.inject({ method: 'GET', url: `/v1/diffs?since=${encodeURIComponent(since)}`, headers: { 'x-hyphae-key': writer.key } });
      expect(response.statusCode, `${since}: ${response.body}`).toBe(200);
    }
  });

  it('answers a 5,000-character path id with the documented error body, not the router own', async () => {
    const response = await http.app.inject({ method: 'GET', url: `/v1/cells/${'a'.repeat(5_000)}`, headers: { 'x-hyphae-key': writer.key } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: { code: 'INVALID_ARGUMENT', message: 'a path parameter is too long', details: { issues: [{ path: '(url)', message: 'a path parameter is too long' }] } },
    });
  });
});

describe('MCP over HTTP: hostile tool arguments never yield a 5xx or an internal error', () => {
  const validArguments = (f: Fixtures): Record<string, Record<string, string>> => {
    const j = JSON.stringify;
    const searchControls = {
      mode: j('lexical'),
      metadata: j({ a: 1 }),
      source_agents: j(['fuzzer']),
      created_after: j('2000-01-01T00:00:00Z'),
      created_before: j('2100-01-01T00:00:00Z'),
      min_trust: '0.1',
      recency_bias: '0.5',
      kind: j('knowledge'),
      num_related_chunks: '1',
      graph_context: 'true',
      as_of: j('2030-01-01T00:00:00Z'),
    };
    return {
      store: {
        content: j('a memory'),
        cell_type: j('Fact'),
        salience: '0.5',
        scene_id: j(f.sceneId),
        metadata: j({ a: 1 }),
        idempotency_key: j('m1'),
        source_ref: j({ kind: 'file', locator: 'x' }),
        supersedes: j(f.cellId),
        relations: j([{ to: f.cellId, type: 'answers' }]),
        ttl_seconds: '3600',
        expires_at: j('2099-01-01T00:00:00Z'),
      },
      recall: { query: j('memory'), k: '3', cell_types: j(['Fact']), scene_id: j(f.sceneId), ...searchControls },
      query: { query: j('memory'), layer: j('L1'), k: '3', cell_types: j(['Fact']), scene_id: j(f.sceneId), ...searchControls },
      open_session: { project: j('fuzz'), title: j('t') },
      close_session: { session_id: j(f.sessionId) },
      place_beacon: {
        text: j('memory'),
        threshold: '0.5',
        project: j('fuzz'),
        cell_types: j(['Fact']),
        scene_id: j(f.sceneId),
        ttl_seconds: '60',
        include_own: 'false',
      },
      list_beacons: { limit: '3', cursor: j(forgedCursor('2020-01-01T00:00:00Z')) },
      pull_diffs: { since: j('2020-01-01T00:00:00Z'), limit: '3' },
      get_scene: { scene_id: j(f.sceneId) },
      list_scenes: { project: j('fuzz'), limit: '3', cursor: j(forgedCursor('2020-01-01T00:00:00Z')) },
      drain_inbox: { page_size: '3' },
    };
  };

  it('the fuzzer knows every argument of every tool (a new tool or argument is fuzzed, or this fails)', () => {
    const args = validArguments(fixtures);
    expect(Object.keys(args).sort()).toEqual(MCP_TOOLS.map((tool) => tool.name).sort());
    for (const tool of MCP_TOOLS) expect(Object.keys(args[tool.name] ?? {}).sort(), tool.name).toEqual(fieldsOf(tool.input));
  });

  it('poisons one or two arguments of a valid call to every tool, under both argument-error conventions and in the stateless revision', async () => {
    const args = validArguments(fixtures);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...MCP_TOOLS.map((tool) => tool.name)),
        fc.array(fc.tuple(fc.nat(), hostileJsonText), { minLength: 1, maxLength: 2 }),
        fc.constantFrom('2025-11-25', '2025-06-18', STATELESS_VERSION),
        async (tool, poisons, version) => {
          const fields = { ...(args[tool] ?? {}) };
          const names = Object.keys(fields);
          for (const [index, jsonText] of poisons) fields[names[index % names.length] as string] = jsonText;
          // The stateless revision (2026-07-28) carries its version in _meta, with headers derived from the body.
          const stateless = version === STATELESS_VERSION;
          const meta = stateless ? `,"_meta":${JSON.stringify(statelessMeta())}` : '';
          const payload = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":${JSON.stringify(tool)},"arguments":${objectText(fields)}${meta}}}`;
          const headers = stateless
            ? statelessHeaders({ method: 'tools/call', params: { name: tool, _meta: statelessMeta() } }, writer.key)
            : { 'x-hyphae-key': writer.key, 'content-type': 'application/json', accept: 'application/json', 'mcp-protocol-version': version };
          const response = await http.app.inject({ method: 'POST', url: '/mcp', headers, payload });
          const context = `${tool} ${payload.slice(0, 300)}`;
          expect(response.statusCode, context).toBeLessThan(500);
          const reply = JSON.parse(response.body) as { error?: { code: number }; result?: unknown };
          expect(reply.error?.code, `${context}\n${response.body.slice(0, 300)}`).not.toBe(-32008);
          expect(reply.error?.code ?? -32000, context).not.toBe(-32603);
        },
      ),
      { numRuns: 400, seed: 13 },
    );
  });
});
