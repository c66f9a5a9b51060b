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
import type { TestRuntime } from '../support/test-runtime.js';
import type { Json } from '../support/mcp/stateless-client.js';
import { openToolCaller, type ToolCaller } from './tool-caller.js';

let tools: ToolCaller;
let runtime: TestRuntime;
let principal: Principal;

beforeAll(async () => {
  tools = await openToolCaller('sources');
  ({ runtime, principal } = tools);
});
afterAll(() => tools?.close());

async function recall(args: Json): Promise<Json> {
  return (await tools.call('recall', args)).structured;
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
