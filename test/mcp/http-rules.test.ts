import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../../src/mcp/protocol/protocol-version.js';
import { buildBareMcpApp, TEST_BODY_LIMIT } from './mcp-http-app.js';
import { DOUBLE_KEY, createProtocolFacadeDouble } from '../support/mcp/protocol-facade-double.js';

let app: FastifyInstance;
beforeAll(async () => {
  app = await buildBareMcpApp(createProtocolFacadeDouble());
});
afterAll(async () => {
  await app.close();
});

const PING = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });

function post(body: string, headers: Record<string, string> = {}): Promise<Awaited<ReturnType<FastifyInstance['inject']>>> {
  const options: InjectOptions = {
    method: 'POST',
    url: '/mcp',
    payload: body,
    headers: { 'content-type': 'application/json', 'x-hyphae-key': DOUBLE_KEY, ...headers },
  };
  return app.inject(options);
}

/** `id`: the request's once the body was read; null for refusals that come before it. */
function expectRpcError(response: { headers: Record<string, unknown>; body: string }, code: number, id: number | null = null): void {
  expect(String(response.headers['content-type'])).toMatch(/^application\/json/);
  const parsed = JSON.parse(response.body) as { jsonrpc: string; id: unknown; error: { code: number; message: string } };
  expect(parsed.jsonrpc).toBe('2.0');
  expect(parsed.id).toBe(id);
  expect(parsed.error.code).toBe(code);
  expect(parsed.error.message).not.toMatch(/\n\s+at /);
}

describe('POST /mcp', () => {
  it('answers a request with 200 application/json and issues no session id', async () => {
    const response = await post(PING, { accept: 'application/json, text/event-stream', 'mcp-session-id': 'ignored' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['mcp-session-id']).toBeUndefined();
    expect(JSON.parse(response.body)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it.each([
    ['no key', {}],
    ['an empty key', { 'x-hyphae-key': '' }],
    ['a wrong key', { 'x-hyphae-key': 'hyk_wrong' }],
    ['an absurdly long key', { 'x-hyphae-key': 'k'.repeat(600) }],
  ])('refuses %s with 401 and a JSON-RPC error body', async (_label, headers) => {
    const options: InjectOptions = { method: 'POST', url: '/mcp', payload: PING, headers: { 'content-type': 'application/json', ...headers } };
    const response = await app.inject(options);
    expect(response.statusCode).toBe(401);
    expectRpcError(response, -32001);
  });

  it('authenticates before reading the body', async () => {
    const response = await app.inject({ method: 'POST', url: '/mcp', payload: '{not json', headers: { 'content-type': 'application/json' } });
    expect(response.statusCode).toBe(401);
  });

  it.each(SUPPORTED_PROTOCOL_VERSIONS)('accepts MCP-Protocol-Version %s', async (version) => {
    expect((await post(PING, { 'mcp-protocol-version': version })).statusCode).toBe(200);
  });

  it.each(['2024-10-07', '2025-13-01', 'latest', ''])('refuses MCP-Protocol-Version %j with 400, answering the request id', async (version) => {
    const response = await post(PING, { 'mcp-protocol-version': version });
    expect(response.statusCode).toBe(400);
    expectRpcError(response, -32600, 1);
  });

  it.each([['text/plain'], ['application/x-www-form-urlencoded'], ['multipart/form-data; boundary=x']])('refuses content-type %s with 415', async (type) => {
    const response = await post(PING, { 'content-type': type });
    expect(response.statusCode).toBe(415);
    expectRpcError(response, -32600);
  });

  it('accepts application/json with a charset', async () => {
    expect((await post(PING, { 'content-type': 'application/json; charset=utf-8' })).statusCode).toBe(200);
  });

  it('refuses an Accept that excludes JSON with 406, and takes */* or none', async () => {
    const refused = await post(PING, { accept: 'text/event-stream' });
    expect(refused.statusCode).toBe(406);
    expectRpcError(refused, -32600, 1);
    expect((await post(PING, { accept: '*/*' })).statusCode).toBe(200);
  });

  it('answers notifications and client responses with 202 and no body', async () => {
    for (const message of [{ jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', id: 3, result: {} }]) {
      const response = await post(JSON.stringify(message));
      expect(response.statusCode).toBe(202);
      expect(response.body).toBe('');
    }
  });

  it.each([['{"jsonrpc":'], [''], ['{"__proto__":{"x":1},"jsonrpc":"2.0","id":1,"method":"ping"}']])('answers unparsable body %j with 400 and -32700', async (text) => {
    const response = await post(text);
    expect(response.statusCode).toBe(400);
    expectRpcError(response, -32700);
  });

  it('refuses a batch with 400 and -32600', async () => {
    const response = await post(JSON.stringify([JSON.parse(PING)]));
    expect(response.statusCode).toBe(400);
    expectRpcError(response, -32600);
  });

  it('answers an unknown method with 200 and -32601 carrying the id', async () => {
    const response = await post(JSON.stringify({ jsonrpc: '2.0', id: 'q', method: 'sampling/createMessage' }));
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ id: 'q', error: { code: -32601 } });
  });

  it('refuses a body over the limit with 413 and a JSON-RPC error', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(TEST_BODY_LIMIT) } });
    const response = await post(big);
    expect(response.statusCode).toBe(413);
    expectRpcError(response, -32005);
  });

  it('follows the header revision for schema failures; absent means 2025-03-26', async () => {
    const bad = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_beacons', arguments: { limit: -1 } } });
    const newest = JSON.parse((await post(bad, { 'mcp-protocol-version': '2025-11-25' })).body);
    expect(newest.result.isError).toBe(true);
    const assumed = JSON.parse((await post(bad)).body);
    expect(assumed.error.code).toBe(-32602);
  });
});

describe('other methods on /mcp', () => {
  it.each(['GET', 'DELETE'] as const)('%s answers 405 with Allow: POST', async (method) => {
    const response = await app.inject({ method, url: '/mcp', headers: { 'x-hyphae-key': DOUBLE_KEY } });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('POST');
    expectRpcError(response, -32600);
  });
});
