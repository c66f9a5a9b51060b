/**
 * A request whose body is empty has no body, whatever its `content-type` says: HTTP clients that
 * send `content-type: application/json` on every call (a shared header, a generic wrapper) get the
 * answer rest.md documents for the routes that take no body or an optional one, and an anonymous
 * caller still meets authentication first.
 */
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MintedKey } from '../support/test-runtime.js';
import { createHttpTestApp, type HttpTestApp } from '../support/http/http-test-app.js';

let t: HttpTestApp;
let alice: MintedKey;

/** `url` called with an empty body, with the JSON content type or without any. */
function emptyCall(method: 'POST' | 'DELETE', url: string, jsonType: boolean, key: string | null = alice.key): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = {};
  if (key !== null) headers['x-hyphae-key'] = key;
  if (jsonType) headers['content-type'] = 'application/json';
  return t.app.inject({ method, url, headers, payload: '' });
}

beforeAll(async () => {
  t = await createHttpTestApp();
  alice = await t.runtime.mintKey({ tenant: 'acme', agent: 'alice', roles: ['writer'] });
});

afterAll(async () => {
  await t?.close();
});

describe('an empty body sent as application/json', () => {
  it('drains the inbox, whose body is optional', async () => {
    const response = await emptyCall('POST', '/v1/inbox/drain', true);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ diffs: [], has_more: false });
  });

  it('closes a session and deletes a cell, routes without a body, as it does without the header', async () => {
    const opened = await t.app.inject({ method: 'POST', url: '/v1/sessions', headers: { 'x-hyphae-key': alice.key }, payload: { project: 'default' } });
    expect(opened.statusCode, opened.body).toBe(201);
    const { session_id } = opened.json() as { session_id: string };
    const closed = await emptyCall('POST', `/v1/sessions/${session_id}/close`, true);
    expect(closed.statusCode, closed.body).toBe(200);
    expect(closed.json()).toMatchObject({ session_id });

    const stored = await t.app.inject({ method: 'POST', url: '/v1/cells', headers: { 'x-hyphae-key': alice.key }, payload: { content: 'Empty bodies are no bodies.', cell_type: 'Fact' } });
    const { node_id } = stored.json() as { node_id: string };
    const erased = await emptyCall('DELETE', `/v1/cells/${node_id}`, true);
    expect(erased.statusCode, erased.body).toBe(200);
    const unknown = randomUUID();
    expect((await emptyCall('DELETE', `/v1/cells/${unknown}`, true)).json()).toEqual((await emptyCall('DELETE', `/v1/cells/${unknown}`, false)).json());
  });

  it('answers an anonymous caller 401 before anything about the body', async () => {
    const response = await emptyCall('POST', '/v1/inbox/drain', true, null);
    expect(response.statusCode).toBe(401);
    expect((response.json() as { error: { code: string } }).error.code).toBe('UNAUTHENTICATED');
  });

  it('validates a route that needs fields as a missing body: 400 naming them', async () => {
    const response = await emptyCall('POST', '/v1/cells', true);
    expect(response.statusCode).toBe(400);
    expect(JSON.stringify(response.json())).toContain('body.content');
  });

  it('still refuses a body that is not JSON', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/v1/inbox/drain', headers: { 'x-hyphae-key': alice.key, 'content-type': 'application/json' }, payload: '{page' });
    expect(response.statusCode).toBe(400);
    expect((response.json() as { error: { code: string } }).error.code).toBe('INVALID_ARGUMENT');
  });
});
