/**
 * Every `/v1` route settles who is asking from the headers before it reads the body: an anonymous
 * caller or a revoked key is answered 401 whatever it sends, and its body — malformed, oversized or
 * well formed — is never parsed, so it learns nothing about the route's fields.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpTestApp, type HttpTestApp } from '../support/http/http-test-app.js';

let t: HttpTestApp;

beforeAll(async () => {
  t = await createHttpTestApp();
});

afterAll(async () => {
  await t?.close();
});

const json = { 'content-type': 'application/json' };

describe('a caller without a valid key', () => {
  it.each([
    ['malformed JSON', '{content'],
    ['a body of the wrong shape', JSON.stringify({ content: 42 })],
    ['a well-formed body', JSON.stringify({ content: 'Anonymous.', cell_type: 'Fact' })],
  ])('is answered 401 before %s is read', async (_what, payload) => {
    for (const headers of [json, { ...json, 'x-hyphae-key': 'hy_not-a-key' }]) {
      const response = await t.app.inject({ method: 'POST', url: '/v1/cells', headers, payload });
      expect(response.statusCode, response.body).toBe(401);
      expect((response.json() as { error: { code: string } }).error.code).toBe('UNAUTHENTICATED');
    }
  });

  it('is answered 401 on a route whose body fields all default, with a body that is not JSON', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/v1/inbox/drain', headers: json, payload: '{page' });
    expect(response.statusCode, response.body).toBe(401);
  });
});
