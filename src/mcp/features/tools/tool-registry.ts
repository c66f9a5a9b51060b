/**
 * The eleven MCP tools (docs/mcp.md) and their descriptors. Descriptors (with the JSON Schemas
 * generated from the zod schemas) are built once at load; tools/list serves them as ready text.
 */
import { z } from 'zod';
import { PreparedJson } from '../../protocol/json-rpc.js';
import { closeSessionTool } from './close-session-tool.js';
import { drainInboxTool } from './drain-inbox-tool.js';
import { getSceneTool } from './get-scene-tool.js';
import { listBeaconsTool } from './list-beacons-tool.js';
import { listScenesTool } from './list-scenes-tool.js';
import { openSessionTool } from './open-session-tool.js';
import { placeBeaconTool } from './place-beacon-tool.js';
import { pullDiffsTool } from './pull-diffs-tool.js';
import { queryTool } from './query-tool.js';
import { recallTool } from './recall-tool.js';
import { storeTool } from './store-tool.js';
import type { McpTool, ToolAnnotations } from './tool-definition.js';
import { toolErrorOutput } from './output-shapes.js';

export const MCP_TOOLS: readonly McpTool[] = [
  storeTool,
  recallTool,
  queryTool,
  openSessionTool,
  closeSessionTool,
  placeBeaconTool,
  listBeaconsTool,
  pullDiffsTool,
  getSceneTool,
  listScenesTool,
  drainInboxTool,
];

const TOOLS_BY_NAME: ReadonlyMap<string, McpTool> = new Map(MCP_TOOLS.map((tool) => [tool.name, tool]));

export function findTool(name: string): McpTool | undefined {
  return TOOLS_BY_NAME.get(name);
}

export type JsonSchemaObject = Record<string, unknown>;

/** JSON Schema without `$schema`: the SDK's default validator (Ajv, draft-07) rejects a 2020-12 meta-schema reference. */
export function toToolJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchemaObject {
  const generated: JsonSchemaObject = z.toJSONSchema(schema, { io });
  delete generated.$schema;
  return generated;
}

/**
 * A tool's outputSchema: its success shape, or the shape of an `isError:true` result for arguments
 * that failed their schema. The official client validates structuredContent even on `isError`.
 */
function outputJsonSchema(tool: McpTool): JsonSchemaObject {
  return { type: 'object', anyOf: [toToolJsonSchema(tool.output, 'output'), toToolJsonSchema(toolErrorOutput, 'output')] };
}

export interface ToolDescriptor {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: JsonSchemaObject;
  readonly outputSchema: JsonSchemaObject;
  readonly annotations: ToolAnnotations & { readonly title: string };
}

/** A tool's tools/list entry. */
export function describeTool(tool: McpTool): ToolDescriptor {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: toToolJsonSchema(tool.input, 'input'),
    outputSchema: outputJsonSchema(tool),
    annotations: { title: tool.title, ...tool.annotations },
  };
}

export const TOOL_DESCRIPTORS: readonly ToolDescriptor[] = MCP_TOOLS.map(describeTool);

/** The tools/list result as JSON text, computed once. */
export const TOOLS_LIST_RESULT_JSON: string = JSON.stringify({ tools: TOOL_DESCRIPTORS });

/** The same, as the result value every tools/list reply splices in. */
export const TOOLS_LIST_RESULT: PreparedJson = new PreparedJson(TOOLS_LIST_RESULT_JSON);

/** The tools one entry serves: its tools/list result, made once, and each tool by name. */
export interface ToolRoster {
  readonly listResult: PreparedJson;
  find(name: string): McpTool | undefined;
}

/** The eleven tools alone (the `hyphae` toolset): the very list above. */
export const HYPHAE_ROSTER: ToolRoster = { listResult: TOOLS_LIST_RESULT, find: findTool };
