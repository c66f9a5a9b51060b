/**
 * MCP 2026-07-28, the stateless revision, beside the handshake revisions, with raw JSON-RPC written from the revision's text
 * (the official SDK does not speak it): telling the revisions apart by per-request `_meta`, server/discover,
 * UnsupportedProtocolVersionError, results with resultType and serverInfo, the Streamable HTTP
 * header rules (HeaderMismatchError, no session id), a client of both kinds of revision probing and falling back, and the
 * eleven tools answering a stateless request exactly as they answer a handshake one — over HTTP (the
 * real app on loopback) and stdio (the stdio server in process).
 */
import { createServer } from 'node:http';
import type { AddressInfo, Server } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADVERTISED_PROTOCOL_VERSIONS } from '../../src/mcp/protocol/protocol-version.js';
import { TOOL_DESCRIPTORS } from '../../src/mcp/features/tools/tool-registry.js';
import { createTestRuntime } from '../support/test-runtime.js';
import type { TestRuntime } from '../support/test-runtime.js';
import { startMcpHttpServer } from './mcp-http-server.js';
import type { ListeningMcpServer } from './mcp-http-server.js';
import { STATELESS_VERSION, SERVER_INFO, statelessHeaders, statelessMeta, statelessPost, statelessRequest, postJson, startRawStdio } from '../support/mcp/stateless-client.js';
import type { HttpReply, Json, RawStdio, RpcMessage } from '../support/mcp/stateless-client.js';

let runtime: TestRuntime;
let server: ListeningMcpServer;
let key: string;

beforeAll(async () => {
  runtime = await createTestRuntime();
  server = await startMcpHttpServer(runtime.facade);
  key = (await runtime.mintKey({ tenant: 'stateless', agent: 'agent' })).key;
});
afterAll(async () => {
  await server?.close();
  await runtime?.close();
});

function expectStatelessError(reply: HttpReply, status: number, code: number, id: string | number | null = 1): RpcMessage {
  expect(reply.status).toBe(status);
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
  expect(reply.body?.jsonrpc).toBe('2.0');
  expect(reply.body?.id).toBe(id);
  expect(reply.body?.error?.code).toBe(code);
  expect(reply.body?.result).toBeUndefined();
  return reply.body as RpcMessage;
}

function expectComplete(result: Json): void {
  expect(result.resultType).toBe('complete');
  expect(result._meta).toEqual({ [SERVER_INFO]: { name: 'hyphae', version: expect.any(String) } });
}

describe('the stateless revision over Streamable HTTP', () => {
  it('answers server/discover with no initialize and no session: versions, capabilities, instructions, complete', async () => {
    const reply = await statelessPost(server.url, key, statelessRequest(1, 'server/discover'));
    expect(reply.status).toBe(200);
    expect(reply.headers.get('mcp-session-id')).toBeNull();
    const result = reply.body?.result as Json;
    expect(result.supportedVersions).toEqual(['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']);
    expect(result.capabilities).toEqual({ tools: { listChanged: false }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: false } });
    expect(result.instructions).toMatch(/Hyphae/);
    expect(result).toMatchObject({ ttlMs: expect.any(Number), cacheScope: 'public' });
    expectComplete(result);
    expect((result._meta as Json)[SERVER_INFO]).toEqual({ name: 'hyphae', version: 'test' });
  });

  it.each(['1900-01-01', '2027-01-01', 'draft'])('answers protocol version %s with UnsupportedProtocolVersionError -32022 (400)', async (version) => {
    const body = statelessRequest(7, 'tools/list', {}, version);
    const error = expectStatelessError(await statelessPost(server.url, key, body), 400, -32022, 7).error;
    expect(error?.data).toEqual({ supported: [...ADVERTISED_PROTOCOL_VERSIONS], requested: version });
  });

  it('answers a handshake revision named in _meta with -32022: those are served after initialize', async () => {
    const error = expectStatelessError(await statelessPost(server.url, key, statelessRequest(1, 'tools/list', {}, '2025-11-25')), 400, -32022).error;
    expect(error?.data?.requested).toBe('2025-11-25');
    expect(error?.message).toMatch(/initialize/);
  });

  it.each([
    ['clientCapabilities missing', { 'io.modelcontextprotocol/protocolVersion': STATELESS_VERSION }],
    ['clientCapabilities not an object', { ...statelessMeta(), 'io.modelcontextprotocol/clientCapabilities': [] }],
    ['protocolVersion not a string', { ...statelessMeta(), 'io.modelcontextprotocol/protocolVersion': 20260728 }],
    ['clientInfo without a version', { ...statelessMeta(), 'io.modelcontextprotocol/clientInfo': { name: 'x' } }],
    ['an unknown logLevel', { ...statelessMeta(), 'io.modelcontextprotocol/logLevel': 'loud' }],
  ])('refuses _meta with %s as -32602 (400)', async (_label, meta) => {
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta } };
    await expect(statelessPost(server.url, key, body, { 'mcp-protocol-version': STATELESS_VERSION })).resolves.toMatchObject({ status: 400 });
    expectStatelessError(await statelessPost(server.url, key, body, { 'mcp-protocol-version': STATELESS_VERSION }), 400, -32602);
  });

  it('accepts a valid per-request logLevel and sends no notifications/message for it', async () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: statelessMeta(STATELESS_VERSION, { 'io.modelcontextprotocol/logLevel': 'debug' }) } };
    const reply = await statelessPost(server.url, key, body);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect((reply.body?.result as Json).tools).toHaveLength(11);
  });

  it.each([
    ['no _meta', {}],
    ['_meta without protocolVersion', { _meta: { 'io.modelcontextprotocol/clientCapabilities': {} } }],
  ])('answers a request whose header names 2026-07-28 but whose body has %s with -32602 (400) carrying its id', async (_label, params) => {
    const reply = await postJson(server.url, { jsonrpc: '2.0', id: 101, method: 'server/discover', params }, {
      'content-type': 'application/json',
      'x-hyphae-key': key,
      'mcp-protocol-version': STATELESS_VERSION,
      'mcp-method': 'server/discover',
    });
    expectStatelessError(reply, 400, -32602, 101);
  });

  it.each(['initialize', 'ping', 'resources/subscribe', 'logging/setLevel', 'no/such/method'])(
    'answers %s in the stateless revision with 404 and -32601 (handshake-only or unknown)',
    async (method) => {
      expectStatelessError(await statelessPost(server.url, key, statelessRequest(1, method, { uri: 'hyphae://inbox' })), 404, -32601);
    },
  );

  describe('request headers (HeaderMismatchError -32020, 400)', () => {
    const call = statelessRequest(3, 'tools/call', { name: 'list_beacons', arguments: {} });
    const read = statelessRequest(4, 'resources/read', { uri: 'hyphae://inbox' });

    it.each([
      ['MCP-Protocol-Version missing', call, { 'mcp-protocol-version': undefined }],
      ['MCP-Protocol-Version unlike _meta', call, { 'mcp-protocol-version': '2025-11-25' }],
      ['Mcp-Method missing', call, { 'mcp-method': undefined }],
      ['Mcp-Method unlike the body', call, { 'mcp-method': 'tools/list' }],
      ['Mcp-Method in another case', call, { 'mcp-method': 'Tools/Call' }],
      ['Mcp-Name missing on tools/call', call, { 'mcp-name': undefined }],
      ['Mcp-Name unlike params.name', call, { 'mcp-name': 'store' }],
      ['Mcp-Name missing on resources/read', read, { 'mcp-name': undefined }],
      ['Mcp-Name unlike params.uri', read, { 'mcp-name': 'hyphae://cells/x' }],
      ['Mcp-Name as broken base64', call, { 'mcp-name': '=?base64?bGlzdF9iZWFjb25z=?=' }],
      ['Mcp-Name as base64 of another name', call, { 'mcp-name': `=?base64?${Buffer.from('store').toString('base64')}?=` }],
    ])('refuses %s', async (_label, body, headers) => {
      const id = (body as { id: number }).id;
      const error = expectStatelessError(await statelessPost(server.url, key, body, headers), 400, -32020, id).error;
      expect(error?.message).toMatch(/^Header mismatch/);
    });

    it('accepts Mcp-Name in the =?base64?…?= form and header names in any case', async () => {
      const reply = await postJson(server.url, call, {
        'Content-Type': 'application/json',
        ACCEPT: 'application/json, text/event-stream',
        'X-Hyphae-Key': key,
        'Mcp-Protocol-Version': STATELESS_VERSION,
        'MCP-METHOD': 'tools/call',
        'mcp-name': `=?base64?${Buffer.from('list_beacons').toString('base64')}?=`,
      });
      expect(reply.status).toBe(200);
      expect((reply.body?.result as Json).isError).toBe(false);
    });

    it('ignores Mcp-Session-Id, even a malformed one, and never mints one', async () => {
      for (const session of ['some-session', 'x'.repeat(300)]) {
        const reply = await statelessPost(server.url, key, call, { 'mcp-session-id': session });
        expect(reply.status).toBe(200);
        expect(reply.headers.get('mcp-session-id')).toBeNull();
      }
    });
  });

  it('keeps the handshake path as it was: no _meta, handshake header → handshake reply without resultType', async () => {
    const reply = await postJson(server.url, { jsonrpc: '2.0', id: 1, method: 'ping' }, {
      'content-type': 'application/json',
      'x-hyphae-key': key,
      'mcp-protocol-version': '2025-11-25',
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    const unknown = await postJson(server.url, { jsonrpc: '2.0', id: 1, method: 'ping' }, {
      'content-type': 'application/json',
      'x-hyphae-key': key,
      'mcp-protocol-version': '2027-01-01',
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body?.error?.code).toBe(-32600);
  });
});

/** How a client of both kinds of revision tells which one a server speaks over HTTP, as the transport page describes it. */
async function detectHttpRevision(url: string, apiKey: string, preferred: string): Promise<{ revision: 'stateless' | 'handshake'; version: string; probes: number }> {
  const STATELESS_ERRORS = new Set([-32020, -32021, -32022]);
  let version = preferred;
  for (let probes = 1; probes <= 3; probes += 1) {
    const body = statelessRequest(probes, 'server/discover', {}, version);
    const reply = await postJson(url, body, { ...statelessHeaders(body, apiKey), 'x-hyphae-key': apiKey });
    if (reply.status === 200 && typeof reply.body?.result?.resultType === 'string') return { revision: 'stateless', version, probes };
    const code = reply.body?.jsonrpc === '2.0' ? reply.body.error?.code : undefined;
    const recognized = reply.status >= 400 && reply.status < 500 && code !== undefined && (STATELESS_ERRORS.has(code) || (reply.status === 404 && code === -32601));
    if (!recognized) break;
    const supported = (reply.body?.error?.data?.supported ?? []) as string[];
    const retry = supported.find((candidate) => candidate === STATELESS_VERSION);
    if (code !== -32022 || retry === undefined) throw new Error(`stateless server refused the probe: ${reply.text}`);
    version = retry;
  }
  // Not a recognized stateless answer: fall back to initialize.
  const init = await postJson(url, { jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'dual', version: '1' } } }, {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'x-hyphae-key': apiKey,
  });
  const negotiated = init.body?.result?.protocolVersion;
  if (typeof negotiated !== 'string') throw new Error(`handshake fall-back failed: ${init.text}`);
  return { revision: 'handshake', version: negotiated, probes: 0 };
}

describe('a client of both kinds of revision probing this server', () => {
  let handshakeOnly: Server;
  let handshakeUrl: string;
  beforeAll(async () => {
    // The official SDK's server: a handshake-only Streamable HTTP server, the case where the probe must fall back.
    handshakeOnly = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        void (async (): Promise<void> => {
          const mcp = new McpServer({ name: 'handshake-only', version: '1.0.0' });
          mcp.registerTool('noop', { description: 'does nothing' }, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
          const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
          response.on('close', () => void transport.close());
          await mcp.connect(transport);
          await transport.handleRequest(request, response, JSON.parse(Buffer.concat(chunks).toString('utf8')));
        })();
      });
    });
    await new Promise<void>((resolve) => handshakeOnly.listen(0, '127.0.0.1', resolve));
    handshakeUrl = `http://127.0.0.1:${(handshakeOnly.address() as AddressInfo).port}/mcp`;
  });
  afterAll(async () => {
    await new Promise((resolve) => handshakeOnly.close(resolve));
  });

  it('stays stateless on the first probe', async () => {
    await expect(detectHttpRevision(server.url.href, key, STATELESS_VERSION)).resolves.toEqual({ revision: 'stateless', version: STATELESS_VERSION, probes: 1 });
  });

  it('reads -32022 in the 400 body as a stateless server and retries with a supported version instead of falling back', async () => {
    await expect(detectHttpRevision(server.url.href, key, '2027-06-30')).resolves.toEqual({ revision: 'stateless', version: STATELESS_VERSION, probes: 2 });
  });

  it('falls back to initialize against a handshake-only server (the control), and this server still answers that initialize', async () => {
    await expect(detectHttpRevision(handshakeUrl, key, STATELESS_VERSION)).resolves.toMatchObject({ revision: 'handshake', version: '2025-11-25' });
    const init = await postJson(server.url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {} } }, {
      'content-type': 'application/json',
      'x-hyphae-key': key,
    });
    expect(init.body?.result?.protocolVersion).toBe('2025-11-25');
    expect(init.body?.result?.resultType).toBeUndefined();
    expect(init.headers.get('mcp-session-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('the stateless revision over stdio', () => {
  let stdio: RawStdio;
  beforeAll(async () => {
    const { principal } = await runtime.mintKey({ tenant: 'stateless-stdio', agent: 'agent' });
    stdio = startRawStdio(runtime.facade, principal);
  });
  afterAll(async () => {
    await stdio?.close();
  });

  it('answers a server/discover probe sent first, with no initialize', async () => {
    const reply = await stdio.request(statelessRequest('probe', 'server/discover'));
    expect(reply.result.supportedVersions).toEqual([...ADVERTISED_PROTOCOL_VERSIONS]);
    expectComplete(reply.result as Json);
  });

  it('answers an unsupported version with -32022 and the supported list', async () => {
    const reply = await stdio.request(statelessRequest(2, 'server/discover', {}, '2030-01-01'));
    expect(reply.error).toMatchObject({ code: -32022, data: { supported: [...ADVERTISED_PROTOCOL_VERSIONS], requested: '2030-01-01' } });
  });

  it('serves stateless and handshake requests side by side without one changing the other', async () => {
    const init = await stdio.request({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {} } });
    expect(init.result.protocolVersion).toBe('2024-11-05');
    const badArgs = { name: 'store', arguments: { content: 5 } };
    // Stateless: a schema failure is a tool result the model reads.
    const stateless = await stdio.request(statelessRequest(3, 'tools/call', badArgs));
    expect(stateless.result).toMatchObject({ isError: true, resultType: 'complete' });
    // Handshake 2024-11-05, negotiated on this process: still a -32602 error.
    const handshake = await stdio.request({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: badArgs });
    expect(handshake.error?.code).toBe(-32602);
    expect(handshake.result).toBeUndefined();
    expect((await stdio.request({ jsonrpc: '2.0', id: 5, method: 'ping' })).result).toEqual({});
    expect((await stdio.request(statelessRequest(6, 'ping'))).error?.code).toBe(-32601);
  });
});

// ---- the eleven tools, handshake vs stateless -------------------------------------------------

type Send = (method: string, params: Json) => Promise<RpcMessage>;

/** Every tool with valid arguments, one schema failure and one facade error; ids come from earlier steps. */
async function toolScenario(send: Send): Promise<unknown[]> {
  const replies: unknown[] = [];
  const call = async (name: string, args: Json): Promise<Json> => {
    const reply = await send('tools/call', { name, arguments: args });
    replies.push(reply.result ?? reply.error);
    return (reply.result?.structuredContent ?? {}) as Json;
  };
  const opened = await call('open_session', { project: 'proj', title: 'a task' });
  await call('store', { content: 'Deploys to the billing cluster need a migration review.', cell_type: 'Decision', salience: 0.7 });
  await call('store', { content: 'The billing cluster runs PostgreSQL.', cell_type: 'Fact' });
  await call('recall', { query: 'billing migration review', k: 5 });
  await call('query', { query: 'billing', layer: 'L0', k: 5 });
  await call('place_beacon', { text: 'billing cluster', threshold: 0.2 });
  await call('list_beacons', {});
  await call('pull_diffs', { since: '2000-01-01T00:00:00Z' });
  await call('get_scene', { scene_id: opened.scene_id });
  await call('list_scenes', {});
  await call('drain_inbox', {});
  await call('close_session', { session_id: opened.session_id });
  await call('store', { content: 7, cell_type: 'Nope', source_agent: 'someone-else' });
  await call('get_scene', { scene_id: '00000000-0000-4000-8000-000000000000' });
  await call('no_such_tool', {});
  return replies;
}

/** Ids and times differ between runs; their order of appearance does not. */
function normalized(replies: unknown[]): unknown {
  const ids = new Map<string, string>();
  const text = JSON.stringify(replies)
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, (id) => {
      if (!ids.has(id)) ids.set(id, `<id${ids.size}>`);
      return ids.get(id) as string;
    })
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)/g, '<time>')
    // Resource names carry the first eight hex digits of the cell id.
    .replace(/"name":"([a-z]+)-[0-9a-f]{8}"/g, '"name":"$1-<short>"');
  return JSON.parse(text);
}

function withoutStatelessFields(replies: unknown[]): unknown[] {
  return replies.map((reply) => {
    if (typeof reply !== 'object' || reply === null || !('resultType' in reply)) return reply;
    const { resultType, _meta, ...rest } = reply as Json;
    expect(resultType).toBe('complete');
    expect(_meta).toEqual({ [SERVER_INFO]: { name: 'hyphae', version: expect.any(String) } });
    return rest;
  });
}

describe('the eleven tools answer a stateless request exactly as a handshake 2025-11-25 one', () => {
  let tenant = 0;
  async function freshKey(): Promise<{ key: string; principal: Awaited<ReturnType<TestRuntime['principal']>> }> {
    tenant += 1;
    const minted = await runtime.mintKey({ tenant: `same-tools-${tenant}`, agent: 'agent' });
    return { key: minted.key, principal: minted.principal };
  }

  it('over HTTP', async () => {
    const handshakeKey = (await freshKey()).key;
    let id = 0;
    const handshake = await toolScenario(async (method, params) =>
      (await postJson(server.url, { jsonrpc: '2.0', id: ++id, method, params }, {
        'content-type': 'application/json',
        'x-hyphae-key': handshakeKey,
        'mcp-protocol-version': '2025-11-25',
      })).body as RpcMessage,
    );
    const statelessKey = (await freshKey()).key;
    const stateless = await toolScenario(async (method, params) => (await statelessPost(server.url, statelessKey, statelessRequest(++id, method, params))).body as RpcMessage);
    expect(handshake).toHaveLength(15);
    expect(normalized(withoutStatelessFields(stateless))).toEqual(normalized(handshake));
    // The scenario really exercised results, schema failures and errors.
    expect(JSON.stringify(handshake)).toContain('"isError":true');
    expect(JSON.stringify(handshake)).toContain('"code":-32003');
  });

  it('over stdio, and the stateless stdio answers equal the stateless HTTP ones', async () => {
    const handshakeStdio = startRawStdio(runtime.facade, (await freshKey()).principal);
    const statelessStdio = startRawStdio(runtime.facade, (await freshKey()).principal);
    try {
      let id = 0;
      await handshakeStdio.request({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {} } });
      const handshake = await toolScenario((method, params) => handshakeStdio.request({ jsonrpc: '2.0', id: ++id, method, params }));
      const stateless = await toolScenario((method, params) => statelessStdio.request(statelessRequest(++id, method, params)));
      expect(normalized(withoutStatelessFields(stateless))).toEqual(normalized(handshake));
      const httpKey = (await freshKey()).key;
      const overHttp = await toolScenario(async (method, params) => (await statelessPost(server.url, httpKey, statelessRequest(++id, method, params))).body as RpcMessage);
      expect(normalized(withoutStatelessFields(overHttp))).toEqual(normalized(withoutStatelessFields(stateless)));
    } finally {
      await handshakeStdio.close();
      await statelessStdio.close();
    }
  });

  it('lists the same eleven tools in both kinds of revision', async () => {
    const stateless = (await statelessPost(server.url, key, statelessRequest(1, 'tools/list'))).body?.result as Json;
    expect((stateless.tools as { name: string }[]).map((tool) => tool.name)).toEqual(TOOL_DESCRIPTORS.map((tool) => tool.name));
    expect(stateless.tools).toEqual(TOOL_DESCRIPTORS);
  });
});
