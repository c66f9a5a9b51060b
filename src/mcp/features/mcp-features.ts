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

export interface McpFeaturesOptions {
  readonly facade: MemoryFacade;
  /** Where internal tool failures are logged (never sent). */
  readonly log?: (message: string) => void;
  /** Counts and times tool calls (the process metrics). */
  readonly observer?: McpCallObserver;
}

export function createMcpFeatures(options: McpFeaturesOptions): McpFeatures {
  const { facade } = options;
  return {
    tools: new ToolCaller(facade, options.log ?? ((): void => undefined), options.observer),
    resources: new ResourceMethods(facade),
    prompts: { list: promptsList, get: (params, principal) => getPrompt(facade, principal, params) },
    description: SERVER_DESCRIPTION,
  };
}
