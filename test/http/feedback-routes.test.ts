/**
 * Request ids and feedback over REST (docs/feedback.md), through `app.inject` against the real
 * facade; every answer is checked against the served OpenAPI document.
 */
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findRecallRequest } from '../../src/store/recall-log-repository.js';
import type { MintedKey } from '../support/test-runtime.js';
import { createHttpTestApp, OpenApiResponseChecker, type HttpTestApp } from '../support/http/http-test-app.js';

let t: HttpTestApp;
let checker: OpenApiResponseChecker;
let alice: MintedKey;
let mallory: MintedKey;

async function post(url: string, body: unknown, key: string = alice.key): Promise<LightMyRequestResponse> {
  const response = await t.app.inject({ method: 'POST', url, headers: { 'x-hyphae-key': key, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  checker.check('POST', url, response);
  return response;
}

beforeAll(async () => {
  t = await createHttpTestApp();
  checker = new OpenApiResponseChecker((await t.app.inject({ method: 'GET', url: '/openapi.json' })).json());
  alice = await t.runtime.mintKey({ tenant: 'acme', agent: 'alice', roles: ['writer'] });
  mallory = await t.runtime.mintKey({ tenant: 'globex', agent: 'mallory', roles: ['writer'] });
});
afterAll(async () => t?.close());

describe('request ids on REST recall and query', () => {
  it('each answer carries the request_id of its logged request', async () => {
    await post('/v1/cells', { content: 'the ledger retries payments with backoff', cell_type: 'Pattern', salience: 0.5 });
    for (const [url, body] of [
      ['/v1/recall', { query: 'ledger backoff', k: 3 }],
      ['/v1/query', { query: 'ledger backoff', layer: 'L0', k: 3 }],
    ] as const) {
      const response = await post(url, body);
      expect(response.statusCode).toBe(200);
      const answer = response.json<{ request_id: string; results: { node: { node_id: string } }[] }>();
      const logged = await findRecallRequest(t.runtime.db, 'acme', answer.request_id);
      expect(logged?.resultIds).toEqual(answer.results.map((hit) => hit.node.node_id));
      expect(logged?.agent).toBe('alice');
    }
  });
});

/** A refusal's body with the refused id and the HTTP request id taken out, so two refusals compare whole. */
function refusalBody(response: LightMyRequestResponse, id: string): unknown {
  const body = response.json<{ error: { request_id?: string } }>();
  delete body.error.request_id;
  return JSON.parse(JSON.stringify(body).replaceAll(id, '<id>'));
}

describe('POST /v1/feedback', () => {
  it('records a judgement with where the truth ranked, labelled agent, and leaves the answer as it was', async () => {
    const stored = (await post('/v1/cells', { content: 'the kiln cools for six hours', cell_type: 'Fact', salience: 0.5 })).json<{ node_id: string }>();
    const body = { query: 'how long does the kiln cool', k: 3, mode: 'vector' };
    const before = (await post('/v1/recall', body)).json<{ request_id: string; results: { node: { node_id: string } }[] }>();
    const rank = before.results.findIndex((hit) => hit.node.node_id === stored.node_id) + 1;
    const response = await post('/v1/feedback', { request_id: before.request_id, rating: 'positive', ground_truth_ids: [stored.node_id], metadata: { run: 'rest' } });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({ request_id: before.request_id, label: 'agent', judged: true, truth_rank: rank });
    const after = (await post('/v1/recall', body)).json<{ results: { node: { node_id: string } }[] }>();
    expect(after.results.map((hit) => hit.node.node_id)).toEqual(before.results.map((hit) => hit.node.node_id));
  });

  it('refuses with neither text nor ground truth: 400 INVALID_ARGUMENT, details.reason feedback_empty', async () => {
    const response = await post('/v1/feedback', { request_id: randomUUID(), rating: 'negative' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: { code: 'INVALID_ARGUMENT', details: { reason: 'feedback_empty', issues: [{ path: 'feedback' }] } } });
  });

  it('refuses each out-of-bounds field with 400 naming it', async () => {
    const request_id = randomUUID();
    for (const [body, path] of [
      [{ request_id, feedback: 'x'.repeat(8_001) }, 'feedback'],
      [{ request_id, ground_truth_ids: Array.from({ length: 101 }, () => randomUUID()) }, 'ground_truth_ids'],
      [{ request_id, feedback: 'ok', metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`l${i}`, 'v'])) }, 'metadata'],
      [{ request_id, feedback: 'ok', rating: 'great' }, 'rating'],
      [{ feedback: 'ok' }, 'request_id'],
    ] as const) {
      const response = await post('/v1/feedback', body);
      expect(response.statusCode, path).toBe(400);
      expect(response.json<{ error: { code: string; details: { issues: { path: string }[] } } }>().error.details.issues.map((issue) => issue.path)).toContain(`body.${path}`);
    }
  });

  it("answers another tenant's request_id with the very 404 of an unknown one, and a missing ground-truth id alike", async () => {
    const { request_id } = (await post('/v1/recall', { query: 'kiln', k: 1 })).json<{ request_id: string }>();
    const unknown = randomUUID();
    const expected = await post('/v1/feedback', { request_id: unknown, feedback: 'missed' }, mallory.key);
    expect(expected.statusCode).toBe(404);
    const foreign = await post('/v1/feedback', { request_id, feedback: 'missed' }, mallory.key);
    expect(foreign.statusCode).toBe(404);
    expect(refusalBody(foreign, request_id)).toEqual(refusalBody(expected, unknown));
    const missing = await post('/v1/feedback', { request_id, ground_truth_ids: [unknown] });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it('GET /v1/feedback/quality answers an admin and refuses any other key with 403', async () => {
    const admin = await t.runtime.mintKey({ tenant: 'acme', agent: 'lead', roles: ['admin'] });
    const get = async (key: string): Promise<LightMyRequestResponse> => {
      const response = await t.app.inject({ method: 'GET', url: '/v1/feedback/quality?days=3&worst=5', headers: { 'x-hyphae-key': key } });
      checker.check('GET', '/v1/feedback/quality', response);
      return response;
    };
    const answer = await get(admin.key);
    expect(answer.statusCode).toBe(200);
    expect(answer.json<{ days: { judged: number }[] }>().days.reduce((sum, day) => sum + day.judged, 0)).toBeGreaterThan(0);
    expect((await get(alice.key)).statusCode).toBe(403);
  });

  it('answers 401 without a credential', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/v1/feedback', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ request_id: randomUUID(), feedback: 'x' }) });
    expect(response.statusCode).toBe(401);
  });
});
