/**
 * `/v1/cells/{id}/relations` over `app.inject` against the real facade (docs/relations.md): add,
 * read and delete; a relation to another tenant's or another project's cell answers the very
 * body a random id does; responses match the served OpenAPI document.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkedCaller, createHttpTestApp, OpenApiResponseChecker, type HttpTestApp } from '../support/http/http-test-app.js';
import { MISSING_ID } from '../support/facade-expectations.js';
import type { MintedKey } from '../support/test-runtime.js';

let t: HttpTestApp;
let checker: OpenApiResponseChecker;
let writer: MintedKey;
let wide: MintedKey;
let stranger: MintedKey;

const call = checkedCaller(
  () => t.app,
  () => checker,
);

async function store(key: string, content: string, extra: Record<string, unknown> = {}): Promise<string> {
  const response = await call('POST', '/v1/cells', '/v1/cells', key, { content, cell_type: 'Fact', ...extra });
  expect(response.statusCode, response.body).toBe(201);
  return (response.json() as { node_id: string }).node_id;
}

/** The response's status and body with the refused id and the request id set aside. */
function shape(response: LightMyRequestResponse, id: string): unknown {
  const body = JSON.parse(response.body.replaceAll(id, '<id>')) as { error?: Record<string, unknown> };
  delete body.error?.request_id;
  return { status: response.statusCode, body };
}

beforeAll(async () => {
  t = await createHttpTestApp();
  checker = new OpenApiResponseChecker((await t.app.inject({ method: 'GET', url: '/openapi.json' })).json());
  writer = await t.runtime.mintKey({ tenant: 'acme', agent: 'alice', projects: ['p'], default_project: 'p' });
  wide = await t.runtime.mintKey({ tenant: 'acme', agent: 'bob', projects: ['p', 'q'], default_project: 'q' });
  stranger = await t.runtime.mintKey({ tenant: 'globex', agent: 'mallory', default_project: 'p' });
});
afterAll(async () => t?.close());

describe('relations over REST', () => {
  it('adds, reads and deletes relations of a cell', async () => {
    const question = await store(writer.key, 'Which queue takes refunds after noon?');
    const answer = await store(writer.key, 'Refunds after noon go to the overnight queue.', { relations: [{ to: question, type: 'answers' }] });
    const risk = await store(writer.key, 'The overnight queue has no on-call owner.');
    const added = await call('POST', `/v1/cells/${answer}/relations`, '/v1/cells/{id}/relations', writer.key, { relations: [{ to: risk, type: 'raises' }] });
    expect(added.statusCode, added.body).toBe(201);
    expect(added.json()).toEqual({
      node_id: answer,
      relations: [
        { from: answer, to: question, type: 'answers' },
        { from: answer, to: risk, type: 'raises' },
      ],
    });
    const deleted = await call('DELETE', `/v1/cells/${answer}/relations?to=${question}&type=answers`, '/v1/cells/{id}/relations', writer.key);
    expect(deleted.statusCode, deleted.body).toBe(204);
    const read = await call('GET', `/v1/cells/${answer}/relations`, '/v1/cells/{id}/relations', writer.key);
    expect(read.json()).toEqual({ node_id: answer, relations: [{ from: answer, to: risk, type: 'raises' }] });
    const again = await call('DELETE', `/v1/cells/${answer}/relations?to=${question}&type=answers`, '/v1/cells/{id}/relations', writer.key);
    expect(again.statusCode).toBe(404);
  });

  it('answers a relation to another tenant or project with the body of a random id', async () => {
    const mine = await store(writer.key, 'Invoices are archived after ninety days.');
    const foreign = await store(stranger.key, 'Globex archives invoices weekly.');
    const otherProject = await store(wide.key, 'Project q keeps invoices forever.');
    const add = (to: string): Promise<LightMyRequestResponse> =>
      call('POST', `/v1/cells/${mine}/relations`, '/v1/cells/{id}/relations', writer.key, { relations: [{ to, type: 'contradicts' }] });
    const storeWith = (to: string): Promise<LightMyRequestResponse> =>
      call('POST', '/v1/cells', '/v1/cells', writer.key, { content: 'Archived invoices are kept a year.', cell_type: 'Fact', relations: [{ to, type: 'contradicts' }] });
    const random = shape(await add(MISSING_ID), MISSING_ID);
    expect(random).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
    const randomStore = shape(await storeWith(MISSING_ID), MISSING_ID);
    for (const id of [foreign, otherProject]) {
      expect(shape(await add(id), id)).toEqual(random);
      expect(shape(await storeWith(id), id)).toEqual(randomStore);
    }
  });

  it('answers GET /v1/cells/{id}/subgraph, narrowed by relation_types; 400 naming the limit past depth 10 or 1000 members', async () => {
    const a = await store(writer.key, 'Backups run nightly at two.');
    const b = await store(writer.key, 'Restores are rehearsed monthly.', { relations: [{ to: a, type: 'depends_on' }] });
    const c = await store(writer.key, 'The rehearsal log lives in the ops wiki.', { relations: [{ to: b, type: 'documents' }] });
    const pattern = '/v1/cells/{id}/subgraph';
    const whole = await call('GET', `/v1/cells/${b}/subgraph?depth=3&max_members=10`, pattern, writer.key);
    expect(whole.statusCode, whole.body).toBe(200);
    expect(whole.json()).toMatchObject({ node_id: b, truncated: false });
    expect(whole.json().members.map((m: { id: string; depth: number }) => [m.id, m.depth])).toEqual([
      [b, 0],
      [a, 1],
      [c, 1],
    ]);
    const narrowed = await call('GET', `/v1/cells/${b}/subgraph?relation_types=documents,answers`, pattern, writer.key);
    expect(narrowed.json().members.map((m: { id: string }) => m.id)).toEqual([b, c]);
    expect(narrowed.json().relations).toEqual([{ from: c, to: b, type: 'documents' }]);
    for (const [query, field, message] of [
      ['depth=11', 'query.depth', 'at most 10'],
      ['max_members=1001', 'query.max_members', 'at most 1000'],
    ]) {
      const refused = await call('GET', `/v1/cells/${b}/subgraph?${query}`, pattern, writer.key);
      expect(refused.statusCode, refused.body).toBe(400);
      expect(refused.json().error.details.issues).toContainEqual({ path: field, message });
    }
    const foreign = await call('GET', `/v1/cells/${b}/subgraph`, pattern, stranger.key);
    expect(foreign.statusCode).toBe(404);
  });
});
