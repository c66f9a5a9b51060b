/**
 * recall and query name their answer (docs/feedback.md): structuredContent carries the request_id
 * beside results, valid against the tool's own outputSchema, the text block carries the same, and
 * the id names the logged request.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/core/principal.js';
import { TOOL_DESCRIPTORS } from '../../src/mcp/features/tools/tool-registry.js';
import { findRecallRequest } from '../../src/store/recall-log-repository.js';
import type { TestRuntime } from '../support/test-runtime.js';
import type { Json } from '../support/mcp/stateless-client.js';
import { openToolCaller, type ToolCaller } from './tool-caller.js';

let tools: ToolCaller;
let runtime: TestRuntime;
let principal: Principal;

beforeAll(async () => {
  tools = await openToolCaller('request-ids');
  ({ runtime, principal } = tools);
});
afterAll(() => tools?.close());

describe('request ids on the MCP recall and query tools', () => {
  it('structuredContent and the text carry the request_id of the logged request, valid against outputSchema', async () => {
    const stored = await runtime.facade.store(principal, { content: 'the kiln thermocouple drifts when hot', cell_type: 'Fact', salience: 0.5 });
    const ajv = new Ajv2020({ strict: false });
    ajvFormats.default(ajv);
    for (const [name, args] of [
      ['recall', { query: 'kiln thermocouple' }],
      ['query', { query: 'kiln thermocouple', layer: 'L0' }],
    ] as const) {
      const validate = ajv.compile(TOOL_DESCRIPTORS.find((tool) => tool.name === name)?.outputSchema ?? { not: {} });
      const { structured, text } = await tools.call(name, args);
      expect(validate(structured), JSON.stringify(validate.errors)).toBe(true);
      expect(Object.keys(structured).sort()).toEqual(['request_id', 'results']);
      const requestId = structured.request_id as string;
      expect((JSON.parse(text) as Json).request_id).toBe(requestId);
      const logged = await findRecallRequest(runtime.db, 'request-ids', requestId);
      expect(logged).toMatchObject({ operation: name, resultIds: [stored.node_id] });
    }
  });

  it('the success shape of both tools requires request_id', () => {
    for (const name of ['recall', 'query']) {
      const schema = TOOL_DESCRIPTORS.find((tool) => tool.name === name)?.outputSchema as { anyOf?: { required?: string[] }[] } | undefined;
      expect(schema?.anyOf?.[0]?.required).toContain('request_id');
    }
  });
});
