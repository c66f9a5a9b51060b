import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { describe, expect, it } from 'vitest';
import { TOOLS_LIST_RESULT_JSON, TOOL_DESCRIPTORS } from '../../src/mcp/features/tools/tool-registry.js';
import { SPEC_TABLE } from './spec-table.js';

describe('tool registry', () => {
  it('holds exactly the eleven tools of the spec', () => {
    expect(TOOL_DESCRIPTORS.map((tool) => tool.name).sort()).toEqual(Object.keys(SPEC_TABLE).sort());
  });

  it.each(Object.entries(SPEC_TABLE))('%s states its arguments and all four annotations as the spec table says', (name, row) => {
    const tool = TOOL_DESCRIPTORS.find((candidate) => candidate.name === name);
    expect(tool).toBeDefined();
    if (tool === undefined) return;
    expect(tool.annotations).toEqual({
      title: tool.title,
      readOnlyHint: row.readOnly,
      destructiveHint: row.destructive,
      idempotentHint: row.idempotent,
      openWorldHint: false,
    });
    const schema = tool.inputSchema as { type: string; properties: Record<string, unknown>; required?: string[]; additionalProperties: unknown };
    expect(schema.type).toBe('object');
    expect(schema.additionalProperties).toBe(false);
    expect('$schema' in schema).toBe(false);
    expect(Object.keys(schema.properties).sort()).toEqual(row.args.map((arg) => arg.replace('*', '')).sort());
    expect([...(schema.required ?? [])].sort()).toEqual(row.args.filter((arg) => arg.endsWith('*')).map((arg) => arg.slice(0, -1)).sort());
    expect(tool.outputSchema.type).toBe('object');
    expect(tool.description.length).toBeGreaterThan(80);
    expect(tool.title.length).toBeGreaterThan(0);
  });

  it('never lets a request name its own agent or tenant', () => {
    for (const tool of TOOL_DESCRIPTORS) {
      const text = JSON.stringify(tool.inputSchema);
      // recall's source_agents filters by author; no argument names the caller.
      expect(text).not.toContain('"source_agent"');
      expect(Object.keys((tool.inputSchema as { properties: object }).properties)).not.toContain('source_agent');
      expect(text).not.toContain('tenant_id');
      expect(JSON.stringify(tool.outputSchema)).not.toContain('tenant');
    }
  });

  it('parses as an MCP tools/list result and every schema compiles in the official client validator', () => {
    const parsed = ListToolsResultSchema.parse(JSON.parse(TOOLS_LIST_RESULT_JSON));
    expect(parsed.tools).toHaveLength(11);
    const validator = new AjvJsonSchemaValidator();
    for (const tool of TOOL_DESCRIPTORS) {
      expect(() => validator.getValidator(tool.inputSchema)).not.toThrow();
      expect(() => validator.getValidator(tool.outputSchema)).not.toThrow();
    }
  });

  it('admits the tool-error shape in every outputSchema so an isError result still validates', () => {
    const validator = new AjvJsonSchemaValidator();
    const toolError = { error: { code: 'INVALID_ARGUMENT', message: 'm', issues: [{ path: 'k', message: 'too big' }] } };
    for (const tool of TOOL_DESCRIPTORS) {
      expect(validator.getValidator(tool.outputSchema)(toolError).valid).toBe(true);
      expect(validator.getValidator(tool.outputSchema)({ unexpected: true }).valid).toBe(false);
    }
  });
});
