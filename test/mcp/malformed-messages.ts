/** fast-check arbitraries for hostile MCP input: raw text, random JSON and near-valid JSON-RPC. */
import fc from 'fast-check';
import { MCP_TOOLS } from '../../src/mcp/features/tools/tool-registry.js';

const METHODS = ['initialize', 'ping', 'tools/list', 'tools/call', 'notifications/initialized', 'resources/list', ''];
const TOOL_NAMES = MCP_TOOLS.map((tool) => tool.name);
const ARG_NAMES = ['content', 'cell_type', 'salience', 'scene_id', 'query', 'k', 'layer', 'project', 'session_id', 'text', 'threshold',
  'limit', 'cursor', 'since', 'page_size', 'source_agent', 'tenant_id', '__proto__', 'constructor'];

const anyJson = fc.jsonValue({ maxDepth: 3 });

const toolArguments = fc.oneof(
  fc.dictionary(fc.constantFrom(...ARG_NAMES), anyJson, { maxKeys: 5 }),
  anyJson,
);

const toolsCallParams = fc.record(
  { name: fc.oneof(fc.constantFrom(...TOOL_NAMES), fc.string(), anyJson), arguments: toolArguments, _meta: anyJson },
  { requiredKeys: [] },
);

const nearValid = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), fc.constant('2.0'), fc.constant('1.0'), anyJson),
    id: fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constant(null), anyJson),
    method: fc.oneof(fc.constantFrom(...METHODS), fc.string({ maxLength: 20 }), anyJson),
    params: fc.oneof(toolsCallParams, fc.record({ protocolVersion: fc.oneof(fc.constantFrom('2025-11-25', '2024-11-05'), anyJson) }), anyJson),
    result: anyJson,
  },
  { requiredKeys: [] },
);

/** One line of input (no newline inside): garbage text, arbitrary JSON, batches or near-valid messages. */
export const malformedLine: fc.Arbitrary<string> = fc
  .oneof(
    { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
    { weight: 2, arbitrary: anyJson.map((value) => JSON.stringify(value)) },
    { weight: 1, arbitrary: fc.array(nearValid, { minLength: 0, maxLength: 3 }).map((batch) => JSON.stringify(batch)) },
    { weight: 6, arbitrary: nearValid.map((value) => JSON.stringify(value)) },
  )
  .map((line) => line.replace(/[\r\n]/g, ' '));

/** True when the text looks like it carries a stack trace or a SQL/driver internals. */
export function leaksInternals(text: string): boolean {
  // A stack frame names its place as (file:line:col); prose like "reinforces that one (its …" is not one.
  return /\n\s+at |at [\w.<>$]+ \([^()]*:\d+:\d+\)|node_modules|\.ts:\d+|SELECT |INSERT |relation "/.test(text);
}

const plausibleValue = fc.oneof(
  fc.constantFrom('Decision', 'Fact', 'Risk', 'L0', 'L1', 'L2', 'payments', 'x', '', '2000-01-01T00:00:00Z', 'not-a-date', '*', '../etc'),
  fc.uuid(),
  fc.double({ min: -2, max: 3, noNaN: true }),
  fc.integer({ min: -5, max: 1000 }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.constantFrom('Decision', 'Fact', 'Nope'), { maxLength: 3 }),
  fc.record({ kind: fc.string({ maxLength: 5 }), locator: fc.string({ maxLength: 5 }) }),
  fc.string({ maxLength: 64 }),
);

/** tools/call requests whose arguments are often valid, so calls reach the facade. */
export const plausibleToolCall: fc.Arbitrary<string> = fc
  .record({
    id: fc.integer({ min: 1, max: 1_000_000 }),
    name: fc.constantFrom(...TOOL_NAMES),
    arguments: fc.dictionary(fc.constantFrom(...ARG_NAMES.filter((name) => name !== '__proto__')), plausibleValue, { maxKeys: 4 }),
  })
  .map(({ id, name, arguments: args }) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }));
