/**
 * MCP recall over sources (docs/sources.md): the optional `kind` argument keeps to knowledge,
 * memory or both, and a chunk hit's structuredContent names its source and character range —
 * checked against the tool's own outputSchema.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/core/principal.js';
import { TOOL_DESCRIPTORS } from '../../src/mcp/features/tools/tool-registry.js';
import { serializeReply } from '../../src/mcp/protocol/json-rpc.js';
import { createMcpFeatures } from '../../src/mcp/features/mcp-features.js';
import { McpDispatcher } from '../../src/mcp/server/mcp-dispatcher.js';
import { createTestRuntime, type TestRuntime } from '../support/test-runtime.js';
import { statelessRequest, type Json } from '../support/mcp/stateless-client.js';

let runtime: TestRuntime;
let principal: Principal;
let dispatcher: McpDispatcher;

beforeAll(async () => {
  runtime = await createTestRuntime();
  principal = await runtime.principal({ tenant: 'sources', agent: 'agent', roles: ['writer'] });
  dispatcher = new McpDispatcher({ features: createMcpFeatures({ facade: runtime.facade }), serverVersion: 'test' });
});
afterAll(async () => {
  await runtime?.close();
});

async function recall(args: Json): Promise<Json> {
  const outcome = await dispatcher.handleValue(statelessRequest(1, 'tools/call', { name: 'recall', arguments: args }), { principal, protocolVersion: '2025-06-18' });
  if (outcome.kind !== 'answered') throw new Error('recall was not answered');
  const body = JSON.parse(serializeReply(outcome.reply)) as Json;
  return ((body.result as Json).structuredContent ?? {}) as Json;
}

describe('recall over sources (MCP)', () => {
  it('kind keeps to knowledge or memory, and a chunk hit names its source and range', async () => {
    const text = '# Kilns\n\nThe kiln thermocouple drifts above nine hundred degrees.';
    await runtime.facade.ingestSource(principal, { text, format: 'markdown', source_id: 'kilns' });
    await runtime.facade.store(principal, { content: 'The kiln thermocouple was recalibrated last week.', cell_type: 'Fact', salience: 0.5 });
    const ajv = new Ajv2020({ strict: false });
    ajvFormats.default(ajv);
    const validate = ajv.compile(TOOL_DESCRIPTORS.find((tool) => tool.name === 'recall')?.outputSchema ?? { not: {} });
    const knowledge = await recall({ query: 'kiln thermocouple', kind: 'knowledge' });
    expect(validate(knowledge), JSON.stringify(validate.errors)).toBe(true);
    const hits = knowledge.results as { source?: Json }[];
    expect(hits.map((hit) => hit.source)).toEqual([{ source_id: 'kilns', chunk_index: 0, char_start: 0, char_end: text.length }]);
    const memory = (await recall({ query: 'kiln thermocouple', kind: 'memory' })).results as { source?: Json }[];
    expect(memory).toHaveLength(1);
    expect(memory[0]?.source).toBeUndefined();
    expect((await recall({ query: 'kiln thermocouple' })).results).toHaveLength(2);
    const related = (await recall({ query: 'kiln thermocouple', kind: 'knowledge', num_related_chunks: 2 })).results as { related_chunks?: unknown }[];
    expect(related[0]?.related_chunks).toEqual([]);
  });
});
