/** /mcp inside the real app: the security defaults of docs/security.md hold on it, on the real facade. */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime } from '../support/test-runtime.js';
import type { MintedKey, TestRuntime } from '../support/test-runtime.js';
import { buildTestHttpApp } from './mcp-http-server.js';

const PING = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
const ALLOWED_ORIGIN = 'https://agents.example.com';

let runtime: TestRuntime;
let app: FastifyInstance;
let limited: FastifyInstance;
let dave: MintedKey;
beforeAll(async () => {
  runtime = await createTestRuntime();
  app = await buildTestHttpApp(runtime.facade, { allowedOrigins: [ALLOWED_ORIGIN] });
  limited = await buildTestHttpApp(runtime.facade, { rateLimitPerMinute: 3 });
  dave = await runtime.mintKey({ tenant: 'app', agent: 'dave' });
});
afterAll(async () => {
  await app.close();
  await limited.close();
  await runtime.close();
});

type InjectReply = Awaited<ReturnType<FastifyInstance['inject']>>;

async function post(target: FastifyInstance, headers: Record<string, string>, body = PING): Promise<InjectReply> {
  return target.inject({ method: 'POST', url: '/mcp', payload: body, headers: { 'content-type': 'application/json', 'x-hyphae-key': dave.key, ...headers } });
}

describe('/mcp in the full app', () => {
  it('answers a keyed request on loopback', async () => {
    const response = await post(app, { host: '127.0.0.1:8787' });
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('refuses a Host outside the allowlist with 421', async () => {
    expect((await post(app, { host: 'evil.example.com' })).statusCode).toBe(421);
  });

  it('refuses a browser Origin that is not allowed with 403 and accepts a listed one', async () => {
    expect((await post(app, { origin: 'https://evil.example.com' })).statusCode).toBe(403);
    const allowed = await post(app, { origin: ALLOWED_ORIGIN });
    expect(allowed.statusCode).toBe(200);
    expect(allowed.headers['access-control-allow-origin']).toBe(ALLOWED_ORIGIN);
  });

  it('refuses a body over 256 KiB with 413 and a JSON-RPC error', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'store', arguments: { content: 'x'.repeat(300 * 1024), cell_type: 'Fact' } } });
    const response = await post(app, {}, big);
    expect(response.statusCode).toBe(413);
    expect(JSON.parse(response.body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32005 } });
  });

  it('refuses a cell over 32 KiB inside the body limit as a facade error', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'store', arguments: { content: 'é'.repeat(20 * 1024), cell_type: 'Fact' } } });
    const reply = JSON.parse((await post(app, { 'mcp-protocol-version': '2025-11-25' }, body)).body);
    expect(reply.id).toBe(2);
    expect([-32000, -32005]).toContain(reply.error.code);
  });

  it('answers 401 with a JSON-RPC body for a missing key', async () => {
    const response = await app.inject({ method: 'POST', url: '/mcp', payload: PING, headers: { 'content-type': 'application/json' } });
    expect(response.statusCode).toBe(401);
    expect(JSON.parse(response.body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32001 } });
  });

  it('rate-limits per key with 429, Retry-After and a JSON-RPC body', async () => {
    const statuses: number[] = [];
    let last: InjectReply | undefined;
    for (let i = 0; i < 5; i += 1) {
      last = await post(limited, {});
      statuses.push(last.statusCode);
    }
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect(statuses[4]).toBe(429);
    expect(last?.headers['retry-after']).toBeDefined();
    expect(JSON.parse(last?.body ?? '{}')).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32006, data: { code: 'RATE_LIMITED' } } });
  });

  it('answers GET without an event-stream Accept and DELETE with 405', async () => {
    const get = await app.inject({ method: 'GET', url: '/mcp', headers: { 'x-hyphae-key': dave.key, accept: 'application/json' } });
    expect(get.statusCode).toBe(405);
    const del = await app.inject({ method: 'DELETE', url: '/mcp', headers: { 'x-hyphae-key': dave.key } });
    expect(del.statusCode).toBe(405);
    expect(del.headers.allow).toBe('POST');
  });
});
