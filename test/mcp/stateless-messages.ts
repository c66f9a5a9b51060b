/** fast-check arbitraries for MCP 2026-07-28 messages: mostly well-formed `_meta`, near-valid params, headers right or wrong. */
import fc from 'fast-check';
import { MCP_TOOLS } from '../../src/mcp/features/tools/tool-registry.js';

const anyJson = fc.jsonValue({ maxDepth: 3 });
const TOOL_NAMES = MCP_TOOLS.map((tool) => tool.name);
const METHODS = [
  'server/discover', 'tools/list', 'tools/call', 'resources/list', 'resources/read', 'resources/templates/list', 'prompts/list', 'prompts/get',
  'subscriptions/listen', 'initialize', 'ping', 'resources/subscribe', 'completion/complete', 'logging/setLevel',
];
const URIS = ['hyphae://inbox', 'hyphae://inbox?after_seq=2', 'hyphae://cells/00000000-0000-4000-8000-000000000000', 'hyphae://x', 'file:///etc/passwd', ''];

const meta = fc.record(
  {
    'io.modelcontextprotocol/protocolVersion': fc.oneof(
      { weight: 6, arbitrary: fc.constant('2026-07-28') },
      { weight: 1, arbitrary: fc.constantFrom('2025-11-25', '1900-01-01', '2027-01-01', '') },
      { weight: 1, arbitrary: anyJson },
    ),
    'io.modelcontextprotocol/clientCapabilities': fc.oneof({ weight: 5, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: anyJson }),
    'io.modelcontextprotocol/clientInfo': fc.oneof({ weight: 4, arbitrary: fc.constant({ name: 'fuzz', version: '1' }) }, { weight: 1, arbitrary: anyJson }),
    'io.modelcontextprotocol/logLevel': fc.oneof(fc.constantFrom('debug', 'error', 'loud'), anyJson),
    progressToken: anyJson,
  },
  { requiredKeys: ['io.modelcontextprotocol/protocolVersion'] },
);

const filter = fc.record(
  {
    toolsListChanged: fc.oneof(fc.boolean(), anyJson),
    resourcesListChanged: fc.oneof(fc.boolean(), anyJson),
    resourceSubscriptions: fc.oneof(fc.array(fc.constantFrom(...URIS), { maxLength: 4 }), anyJson),
  },
  { requiredKeys: [] },
);

const params = fc.record(
  {
    _meta: meta,
    name: fc.oneof(fc.constantFrom(...TOOL_NAMES, 'catch_up'), fc.string({ maxLength: 12 }), anyJson),
    uri: fc.oneof(fc.constantFrom(...URIS), anyJson),
    arguments: fc.oneof(fc.dictionary(fc.constantFrom('content', 'cell_type', 'query', 'limit', 'since', 'text', 'page_size'), anyJson, { maxKeys: 3 }), anyJson),
    cursor: fc.oneof(fc.string({ maxLength: 10 }), anyJson),
    notifications: fc.oneof({ weight: 3, arbitrary: filter }, { weight: 1, arbitrary: anyJson }),
  },
  { requiredKeys: ['_meta'] },
);

export interface StatelessCase {
  readonly body: Record<string, unknown>;
  /** Whether the Streamable HTTP headers are derived from the body (else some are missing or wrong). */
  readonly rightHeaders: boolean;
  readonly wrongHeader: 'mcp-protocol-version' | 'mcp-method' | 'mcp-name';
  readonly wrongValue: string;
}

/** A request whose `_meta` names a protocol version (so it is of the stateless revision), near-valid otherwise. */
export const statelessCase: fc.Arbitrary<StatelessCase> = fc.record({
  body: fc.record({
    jsonrpc: fc.constant('2.0'),
    id: fc.oneof(fc.integer(), fc.string({ maxLength: 8 })),
    method: fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...METHODS) }, { weight: 1, arbitrary: fc.string({ maxLength: 16 }) }),
    params,
  }),
  rightHeaders: fc.boolean(),
  wrongHeader: fc.constantFrom('mcp-protocol-version' as const, 'mcp-method' as const, 'mcp-name' as const),
  wrongValue: fc.oneof(fc.constantFrom('2026-07-28', 'tools/call', '=?base64?!!?=', '=?base64?c3RvcmU=?='), fc.stringMatching(/^[\x21-\x7e]{1,20}$/)),
});

/** The headers a conforming client derives from the body (values it cannot name are left out). */
export function derivedHeaders(body: Record<string, unknown>): Record<string, string> {
  const p = (body.params ?? {}) as Record<string, unknown>;
  const version = (p._meta as Record<string, unknown>)['io.modelcontextprotocol/protocolVersion'];
  const name = body.method === 'resources/read' ? p.uri : body.method === 'tools/call' || body.method === 'prompts/get' ? p.name : undefined;
  const headers: Record<string, string> = { 'mcp-method': String(body.method) };
  if (typeof version === 'string' && /^[\x20-\x7e]*$/.test(version)) headers['mcp-protocol-version'] = version;
  if (typeof name === 'string') headers['mcp-name'] = /^[\x21-\x7e]*$/.test(name) && name !== '' ? name : `=?base64?${Buffer.from(name).toString('base64')}?=`;
  if (!/^[\x21-\x7e]+$/.test(headers['mcp-method'] ?? '')) headers['mcp-method'] = `x${Buffer.from(String(body.method)).toString('hex')}`;
  return headers;
}
