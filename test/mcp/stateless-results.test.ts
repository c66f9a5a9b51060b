/**
 * The shapes of the stateless revision's (MCP 2026-07-28) results, with raw JSON-RPC: `ttlMs` and `cacheScope` on
 * every cacheable result, a deterministic tools/list, resource-not-found as -32602 (and no -32002
 * ever, so FORBIDDEN moves to -31002), and tool schemas and structuredContent valid under JSON
 * Schema 2020-12 (the revision's default dialect) — beside the handshake revisions' answers, unchanged.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serializeReply } from '../../src/mcp/protocol/json-rpc.js';
import { createMcpFeatures } from '../../src/mcp/features/mcp-features.js';
import { McpDispatcher } from '../../src/mcp/server/mcp-dispatcher.js';
import { CELL_READ_TTL_MS, STATIC_LIST_TTL_MS } from '../../src/mcp/server/stateless-methods.js';
import { TOOL_DESCRIPTORS } from '../../src/mcp/features/tools/tool-registry.js';
import { createTestRuntime } from '../support/test-runtime.js';
import type { TestRuntime } from '../support/test-runtime.js';
import { startMcpHttpServer } from './mcp-http-server.js';
import type { ListeningMcpServer } from './mcp-http-server.js';
import { statelessPost, statelessRequest, postJson } from '../support/mcp/stateless-client.js';
import type { Json, RpcMessage } from '../support/mcp/stateless-client.js';

let runtime: TestRuntime;
let server: ListeningMcpServer;
let key: string;
let cellUri: string;

beforeAll(async () => {
  runtime = await createTestRuntime();
  server = await startMcpHttpServer(runtime.facade);
  key = (await runtime.mintKey({ tenant: 'results', agent: 'agent' })).key;
  const stored = await statelessPost(server.url, key, statelessRequest(1, 'tools/call', { name: 'store', arguments: { content: 'A cell to read', cell_type: 'Fact' } }));
  cellUri = `hyphae://cells/${String(stored.body?.result?.structuredContent?.node_id)}`;
});
afterAll(async () => {
  await server?.close();
  await runtime?.close();
});

async function stateless(method: string, params: Json = {}, apiKey = key): Promise<RpcMessage> {
  return (await statelessPost(server.url, apiKey, statelessRequest(1, method, params))).body as RpcMessage;
}

async function handshake(method: string, params: Json = {}, apiKey = key): Promise<RpcMessage> {
  return (await postJson(server.url, { jsonrpc: '2.0', id: 1, method, params }, {
    'content-type': 'application/json',
    'x-hyphae-key': apiKey,
    'mcp-protocol-version': '2025-11-25',
  })).body as RpcMessage;
}

describe('cache hints (CacheableResult)', () => {
  it.each([
    ['tools/list', {}, STATIC_LIST_TTL_MS, 'public'],
    ['resources/templates/list', {}, STATIC_LIST_TTL_MS, 'public'],
    ['prompts/list', {}, STATIC_LIST_TTL_MS, 'public'],
    ['server/discover', {}, STATIC_LIST_TTL_MS, 'public'],
    ['resources/list', {}, 0, 'private'],
    ['resources/read', { uri: 'hyphae://inbox' }, 0, 'private'],
  ] as const)('%s carries its cache hint (ttlMs, cacheScope)', async (method, params, ttlMs, cacheScope) => {
    const reply = await stateless(method, params);
    expect(reply.result).toMatchObject({ ttlMs, cacheScope, resultType: 'complete' });
  });

  it('a cell read may be kept a minute, for this key only', async () => {
    expect((await stateless('resources/read', { uri: cellUri })).result).toMatchObject({ ttlMs: CELL_READ_TTL_MS, cacheScope: 'private' });
  });

  it('tool calls and prompts/get are not cacheable; handshake results carry none of these fields', async () => {
    const call = (await stateless('tools/call', { name: 'list_beacons', arguments: {} })).result as Json;
    expect(call.resultType).toBe('complete');
    expect(call).not.toHaveProperty('ttlMs');
    expect((await stateless('prompts/get', { name: 'catch_up' })).result).not.toHaveProperty('cacheScope');
    for (const method of ['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list']) {
      const result = (await handshake(method)).result as Json;
      expect(Object.keys(result).filter((field) => ['ttlMs', 'cacheScope', 'resultType', '_meta'].includes(field))).toEqual([]);
    }
  });
});

describe('tools/list', () => {
  it('lists the tools in one documented order, the same bytes from any server instance and in either kind of revision', async () => {
    const first = await statelessPost(server.url, key, statelessRequest(1, 'tools/list'));
    const second = await statelessPost(server.url, key, statelessRequest(1, 'tools/list'));
    expect(second.text).toBe(first.text);
    const names = (first.body?.result?.tools as { name: string }[]).map((tool) => tool.name);
    expect(names).toEqual([
      'store', 'recall', 'query', 'open_session', 'close_session', 'place_beacon', 'list_beacons', 'pull_diffs', 'get_scene', 'list_scenes', 'drain_inbox',
    ]);
    const other = new McpDispatcher({ features: createMcpFeatures({ facade: runtime.facade }), serverVersion: 'test' });
    const principal = await runtime.facade.authenticate(key);
    const outcome = await other.handleValue(statelessRequest(1, 'tools/list'), { principal, protocolVersion: '2025-03-26' });
    expect(outcome.kind === 'answered' ? serializeReply(outcome.reply) : '').toBe(first.text);
    expect((await handshake('tools/list')).result?.tools).toEqual(first.body?.result?.tools);
  });
});

describe('errors the stateless revision may not share with the handshake ones', () => {
  it.each(['hyphae://cells/00000000-0000-4000-8000-000000000000', 'hyphae://nowhere', 'file:///etc/passwd'])(
    'resources/read of %s is -32602 in the stateless revision, -32002 in the handshake ones',
    async (uri) => {
      expect((await stateless('resources/read', { uri })).error).toMatchObject({ code: -32602, message: 'Resource not found', data: { code: 'NOT_FOUND', uri } });
      expect((await handshake('resources/read', { uri })).error).toMatchObject({ code: -32002, data: { code: 'NOT_FOUND', uri } });
    },
  );

  it('a cell of another tenant reads as not found, the same -32602', async () => {
    const otherKey = (await runtime.mintKey({ tenant: 'results-other', agent: 'agent' })).key;
    expect((await stateless('resources/read', { uri: cellUri }, otherKey)).error?.code).toBe(-32602);
  });

  it('FORBIDDEN is -31002 in the stateless revision (it is -32002 for handshake clients), data.code unchanged', async () => {
    const readerKey = (await runtime.mintKey({ tenant: 'results', agent: 'read-only', roles: ['reader'] })).key;
    const args = { name: 'store', arguments: { content: 'not allowed', cell_type: 'Fact' } };
    expect((await handshake('tools/call', args, readerKey)).error).toMatchObject({ code: -32002, data: { code: 'FORBIDDEN' } });
    expect((await stateless('tools/call', args, readerKey)).error).toMatchObject({ code: -31002, data: { code: 'FORBIDDEN' } });
  });
});

describe('JSON Schema 2020-12 (the revision’s default dialect)', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });

  it.each(TOOL_DESCRIPTORS.map((tool) => [tool.name, tool] as const))('%s: inputSchema and outputSchema are valid 2020-12 schemas with no $schema', (_name, tool) => {
    expect(tool.inputSchema).not.toHaveProperty('$schema');
    expect(tool.inputSchema.type).toBe('object');
    expect(ajv.validateSchema(tool.inputSchema)).toBe(true);
    expect(ajv.validateSchema(tool.outputSchema)).toBe(true);
  });

  it('every stateless tool result’s structuredContent validates against its outputSchema, schema failures included', async () => {
    const results: [string, unknown][] = [];
    const call = async (name: string, args: Json): Promise<Json> => {
      const result = (await stateless('tools/call', { name, arguments: args })).result as Json;
      results.push([name, result.structuredContent]);
      return result.structuredContent as Json;
    };
    const opened = await call('open_session', { project: 'schemas' });
    await call('store', { content: 'Schemas are checked under 2020-12.', cell_type: 'Lesson' });
    await call('recall', { query: 'schemas' });
    await call('query', { query: 'schemas', layer: 'L0' });
    await call('place_beacon', { text: 'schemas' });
    await call('list_beacons', {});
    await call('pull_diffs', { since: '2000-01-01T00:00:00Z' });
    await call('get_scene', { scene_id: opened.scene_id });
    await call('list_scenes', {});
    await call('drain_inbox', {});
    await call('close_session', { session_id: opened.session_id });
    await call('recall', { query: 42 });
    expect(results).toHaveLength(12);
    for (const [name, structured] of results) {
      const validate = ajv.compile(TOOL_DESCRIPTORS.find((tool) => tool.name === name)?.outputSchema ?? { not: {} });
      expect(validate(structured), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });
});
