/**
 * Request ids and feedback over REST (docs/feedback.md), through `app.inject` against the real
 * facade; every answer is checked against the served OpenAPI document.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findRecallRequest } from '../../src/store/recall-log-repository.js';
import type { MintedKey } from '../support/test-runtime.js';
import { createHttpTestApp, OpenApiResponseChecker, type HttpTestApp } from '../support/http/http-test-app.js';

let t: HttpTestApp;
let checker: OpenApiResponseChecker;
let alice: MintedKey;

async function post(url: string, body: unknown, key: string = alice.key): Promise<LightMyRequestResponse> {
  const response = await t.app.inject({ method: 'POST', url, headers: { 'x-hyphae-key': key, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  checker.check('POST', url, response);
  return response;
}

beforeAll(async () => {
  t = await createHttpTestApp();
  checker = new OpenApiResponseChecker((await t.app.inject({ method: 'GET', url: '/openapi.json' })).json());
  alice = await t.runtime.mintKey({ tenant: 'acme', agent: 'alice', roles: ['writer'] });
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
