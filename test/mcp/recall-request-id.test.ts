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
import { serializeReply } from '../../src/mcp/protocol/json-rpc.js';
import { createMcpFeatures } from '../../src/mcp/features/mcp-features.js';
import { McpDispatcher } from '../../src/mcp/server/mcp-dispatcher.js';
import { findRecallRequest } from '../../src/store/recall-log-repository.js';
import { createTestRuntime, type TestRuntime } from '../support/test-runtime.js';
import { statelessRequest, type Json } from '../support/mcp/stateless-client.js';

let runtime: TestRuntime;
let principal: Principal;
let dispatcher: McpDispatcher;

beforeAll(async () => {
  runtime = await createTestRuntime();
  principal = await runtime.principal({ tenant: 'request-ids', agent: 'agent', roles: ['writer'] });
  dispatcher = new McpDispatcher({ features: createMcpFeatures({ facade: runtime.facade }), serverVersion: 'test' });
});
afterAll(async () => {
  await runtime?.close();
});

async function call(name: string, args: Json): Promise<{ structured: Json; text: string }> {
  const outcome = await dispatcher.handleValue(statelessRequest(1, 'tools/call', { name, arguments: args }), { principal, protocolVersion: '2025-06-18' });
  if (outcome.kind !== 'answered') throw new Error(`${name} was not answered`);
  const result = (JSON.parse(serializeReply(outcome.reply)) as Json).result as Json;
  const [first] = result.content as { type: string; text: string }[];
  return { structured: (result.structuredContent ?? {}) as Json, text: first?.text ?? '' };
}

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
      const { structured, text } = await call(name, args);
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
