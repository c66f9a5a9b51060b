/**
 * An API key sent as `Authorization: Bearer <key>` — what docs/helm.md and most HTTP clients do —
 * is the key on every HTTP surface of a listening server: REST, an SSE route, MCP through the
 * official SDK client, and A2A through its SDK client. A request with no usable credential is told
 * both forms; a bearer token that is no key, on a server without OAuth, is told OAuth is off.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Message } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryNode } from '../../src/core/entities.js';
import { a2aClient, data, dataOf, fetchWithBearer, sendRequest, startA2aServer, userMessage, type A2aTestServer } from '../support/a2a-server.js';

const BOTH_FORMS = '"x-hyphae-key: <key>" or "Authorization: Bearer <key>"';

let server: A2aTestServer;
let key = '';

beforeAll(async () => {
  server = await startA2aServer({ a2a: true });
  key = (await server.mintKey('acme', 'bearer-agent')).key;
});

afterAll(async () => {
  await server?.close();
});

const bearer = (value: string): Record<string, string> => ({ authorization: `Bearer ${value}` });

describe('an API key as Authorization: Bearer', () => {
  it('REST: stores and reads as the key', async () => {
    const stored = await fetch(`${server.baseUrl}/v1/cells`, {
      method: 'POST',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'Bearer keys work on REST', cell_type: 'Fact' }),
    });
    expect(stored.status, await stored.clone().text()).toBe(201);
    expect(((await stored.json()) as MemoryNode).source_agent).toBe('bearer-agent');
    const me = await fetch(`${server.baseUrl}/v1/me`, { headers: bearer(key) });
    expect(await me.json()).toMatchObject({ tenant: 'acme', agent: 'bearer-agent' });
  });

  it('an SSE route: opens the gossip stream', async () => {
    const abort = new AbortController();
    try {
      const response = await fetch(`${server.baseUrl}/v1/gossip/stream`, { headers: { ...bearer(key), accept: 'text/event-stream' }, signal: abort.signal });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/event-stream');
    } finally {
      abort.abort();
    }
  });

  it('MCP over HTTP: the official SDK client with the key in requestInit', async () => {
    const client = new Client({ name: 'bearer-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), { requestInit: { headers: bearer(key) } }));
    try {
      const result = await client.callTool({ name: 'store', arguments: { content: 'Bearer keys work on MCP', cell_type: 'Fact' } });
      expect(result.isError, JSON.stringify(result)).toBe(false);
    } finally {
      await client.close();
    }
  });

  it('A2A: the SDK client sending the key as a bearer', async () => {
    const client = await a2aClient(server.baseUrl, undefined, fetchWithBearer(key));
    const stored = (await client.sendMessage(sendRequest(userMessage([data({ skill: 'remember', content: 'Bearer keys work on A2A', cell_type: 'Fact' })])))) as Message;
    expect((dataOf(stored) as MemoryNode).source_agent).toBe('bearer-agent');
  });

  it('x-hyphae-key still wins when both are sent', async () => {
    const me = await fetch(`${server.baseUrl}/v1/me`, { headers: { 'x-hyphae-key': key, ...bearer('hy_not-this-one-at-all') } });
    expect(me.status).toBe(200);
  });
});

describe('what a 401 says', () => {
  it('names both forms when no credential is sent, on REST, MCP and A2A', async () => {
    const rest = await fetch(`${server.baseUrl}/v1/cells`);
    expect(rest.status).toBe(401);
    expect(((await rest.json()) as { error: { message: string } }).error.message).toContain(BOTH_FORMS);
    const mcp = await fetch(`${server.baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(mcp.status).toBe(401);
    expect(((await mcp.json()) as { error: { message: string } }).error.message).toContain(BOTH_FORMS);
    const a2a = await fetch(`${server.baseUrl}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }),
    });
    expect(a2a.status).toBe(401);
    expect(((await a2a.json()) as { error: { message: string } }).error.message).toContain(BOTH_FORMS);
  });

  it('says OAuth is off when a bearer token that is no key reaches a server without it', async () => {
    const response = await fetch(`${server.baseUrl}/v1/cells`, { headers: bearer('eyJhbGciOiJSUzI1NiJ9.e30.c2ln') });
    expect(response.status).toBe(401);
    const { message } = ((await response.json()) as { error: { message: string } }).error;
    expect(message).toContain('accepts no OAuth access tokens');
    expect(message).toContain(BOTH_FORMS);
  });
});
