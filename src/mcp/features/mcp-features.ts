/**
 * The features over one facade, as the dispatcher takes them (server/mcp-features.ts): the tools,
 * the resources, the catch_up prompt and what the server says about itself. The transports compose
 * the two: `new McpDispatcher({ features: createMcpFeatures(…), … })`.
 */
import type { MemoryFacade } from '../../service/memory-facade.js';
import type { McpFeatures } from '../server/mcp-features.js';
import { getPrompt, promptsList } from './prompts/catch-up-prompt.js';
import { ResourceMethods } from './resources/resource-methods.js';
import { SERVER_DESCRIPTION } from './server-description.js';
import type { McpCallObserver } from './tools/tool-call.js';
import { ToolCaller } from './tools/tool-call.js';
import type { HydraCall } from './hydradb/hydradb-tool.js';
import { DEFAULT_TOOLSETS, toolRoster } from './toolsets.js';
import type { ToolsetChoice } from './toolsets.js';

export interface McpFeaturesOptions {
  readonly facade: MemoryFacade;
  /** Where internal tool failures are logged (never sent). */
  readonly log?: (message: string) => void;
  /** Counts and times tool calls (the process metrics). */
  readonly observer?: McpCallObserver;
  /** Which toolsets the entry serves (default: hyphae's eleven tools). */
  readonly toolsets?: ToolsetChoice;
  /** The HydraDB tools' connection defaults (its environment or its request's headers). */
  readonly hydradb?: HydraCall;
}

export function createMcpFeatures(options: McpFeaturesOptions): McpFeatures {
  const { facade } = options;
  return {
    tools: new ToolCaller(facade, options.log ?? ((): void => undefined), options.observer, toolRoster(options.toolsets ?? DEFAULT_TOOLSETS, options.hydradb)),
    resources: new ResourceMethods(facade),
    prompts: { list: promptsList, get: (params, principal) => getPrompt(facade, principal, params) },
    description: SERVER_DESCRIPTION,
  };
}
