import { describe, expect, it } from 'vitest';
import { createMcpFeatures } from '../../src/mcp/features/mcp-features.js';
import { McpDispatcher } from '../../src/mcp/server/mcp-dispatcher.js';
import type { McpOutcome } from '../../src/mcp/server/mcp-dispatcher.js';
import type { McpSession } from '../../src/mcp/server/handshake-methods.js';
import { serializeReply } from '../../src/mcp/protocol/json-rpc.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../../src/mcp/protocol/protocol-version.js';
import type { ProtocolVersion } from '../../src/mcp/protocol/protocol-version.js';
import { DOUBLE_BEACON, DOUBLE_PRINCIPAL, createProtocolFacadeDouble } from '../support/mcp/protocol-facade-double.js';

const dispatcher = new McpDispatcher({ features: createMcpFeatures({ facade: createProtocolFacadeDouble() }), serverVersion: '9.9.9' });

function session(protocolVersion: ProtocolVersion = '2025-11-25'): McpSession {
  return { principal: DOUBLE_PRINCIPAL, protocolVersion };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- replies are inspected field by field
function body(outcome: McpOutcome): any {
  if (outcome.kind === 'accepted' || outcome.kind === 'listen') throw new Error('expected a reply');
  return JSON.parse(serializeReply(outcome.reply));
}

async function call(method: string, params?: unknown, on: McpSession = session()): Promise<McpOutcome> {
  return dispatcher.handleValue({ jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) }, on);
}

describe('initialize', () => {
  it.each(SUPPORTED_PROTOCOL_VERSIONS)('echoes %s and records it on the session', async (version) => {
    const on = session('2025-03-26');
    const reply = body(await call('initialize', { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '1' } }, on));
    expect(reply.result).toMatchObject({
      protocolVersion: version,
      capabilities: { tools: { listChanged: false } },
      serverInfo: { name: 'hyphae', version: '9.9.9' },
    });
    expect(typeof reply.result.instructions).toBe('string');
    expect(on.protocolVersion).toBe(version);
  });

  it.each([['2024-10-07'], ['1999-01-01'], [undefined], [42]])('answers %s with 2025-11-25', async (requested) => {
    const reply = body(await call('initialize', { protocolVersion: requested }));
    expect(reply.result.protocolVersion).toBe('2025-11-25');
  });
});

describe('methods', () => {
  it('answers ping with an empty result and tools/list with the eleven tools', async () => {
    expect(body(await call('ping'))).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(body(await call('tools/list', {})).result.tools).toHaveLength(11);
  });

  it('answers an unknown method with -32601', async () => {
    expect(body(await call('sampling/createMessage')).error.code).toBe(-32601);
  });

  it('never answers a notification, even an unknown one, nor a client response', async () => {
    for (const message of [
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', method: 'no/such/notification', params: {} },
      { jsonrpc: '2.0', id: 9, result: {} },
    ]) {
      expect(await dispatcher.handleValue(message, session())).toEqual({ kind: 'accepted' });
    }
  });

  it('refuses non-object params with -32602', async () => {
    expect(body(await call('ping', [1])).error.code).toBe(-32602);
    expect(body(await call('tools/call', null)).error.code).toBe(-32602);
  });

  it('rejects unparsable text with -32700 and id null', async () => {
    const outcome = await dispatcher.handleText('{"jsonrpc":"2.0",', session());
    expect(outcome.kind).toBe('rejected');
    expect(body(outcome)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.any(String) } });
  });
});

describe('tools/call', () => {
  it.each([
    ['no name', {}],
    ['a numeric name', { name: 3 }],
    ['an unknown tool', { name: 'consolidate_scene', arguments: {} }],
    ['array arguments', { name: 'list_beacons', arguments: [] }],
    ['string arguments', { name: 'list_beacons', arguments: 'limit=1' }],
  ])('answers %s with -32602', async (_label, params) => {
    expect(body(await call('tools/call', params)).error.code).toBe(-32602);
  });

  it('wraps a result as a text block plus structuredContent', async () => {
    const reply = body(await call('tools/call', { name: 'list_beacons', arguments: { limit: 5 } }));
    const expected = { beacons: [DOUBLE_BEACON], next_cursor: null };
    expect(reply.result).toEqual({ content: [{ type: 'text', text: JSON.stringify(expected) }], structuredContent: expected, isError: false });
  });

  it('reports schema failures as an isError result under 2025-11-25', async () => {
    const reply = body(await call('tools/call', { name: 'list_beacons', arguments: { limit: 0, source_agent: 'mallory' } }));
    expect(reply.result.isError).toBe(true);
    expect(reply.result.structuredContent.error.code).toBe('INVALID_ARGUMENT');
    expect(reply.result.structuredContent.error.issues.map((issue: { path: string }) => issue.path).sort()).toEqual(['limit', 'source_agent']);
    expect(JSON.parse(reply.result.content[0].text)).toEqual(reply.result.structuredContent);
  });

  it.each(SUPPORTED_PROTOCOL_VERSIONS.filter((version) => version !== '2025-11-25'))('reports schema failures as -32602 under %s', async (version) => {
    const reply = body(await call('tools/call', { name: 'store', arguments: { content: 'x', cell_type: 'Fact', tenant_id: 't2' } }, session(version)));
    expect(reply.error).toMatchObject({ code: -32602, data: { code: 'INVALID_ARGUMENT', issues: [{ path: 'tenant_id' }] } });
  });

  it('turns a facade error into its JSON-RPC code with data.code', async () => {
    const reply = body(await call('tools/call', { name: 'get_scene', arguments: { scene_id: '6f1c2b8e-3f0a-4d5b-9c7e-0a1b2c3d4e5f' } }));
    expect(reply.error).toMatchObject({ code: -32003, data: { code: 'NOT_FOUND' } });
  });

  it('hides the message of an unexpected failure', async () => {
    const reply = body(await call('tools/call', { name: 'store', arguments: { content: 'x', cell_type: 'Fact' } }));
    expect(reply.error).toEqual({ code: -32008, message: 'internal error', data: { code: 'INTERNAL' } });
  });
});
