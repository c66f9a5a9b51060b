/**
 * Which tools an entry serves (docs/mcp.md, "Toolsets"): `hyphae`, the eleven tools exactly as the
 * registry lists them, and/or `hydradb`, the HydraDB tools run with the connection's defaults. The
 * tools/list text of each choice is made once; the hyphae-only choice is the registry's own text.
 */
import { PreparedJson } from '../protocol/json-rpc.js';
import type { McpToolset } from '../../core/config/toolset-settings.js';
import { HYDRADB_LEGACY_TOOLS, HYDRADB_TOOLS } from './hydradb/hydradb-tools.js';
import type { HydraCall, HydraTool } from './hydradb/hydradb-tool.js';
import { HYPHAE_ROSTER, TOOL_DESCRIPTORS, describeTool, findTool } from './tools/tool-registry.js';
import type { ToolRoster } from './tools/tool-registry.js';
import type { McpTool } from './tools/tool-definition.js';

export interface ToolsetChoice {
  readonly toolsets: readonly McpToolset[];
  /** Also the deprecated `hydra_db_*` names (HYDRADB_MCP_LEGACY_TOOLS=1). */
  readonly legacyTools?: boolean;
}

export const DEFAULT_TOOLSETS: ToolsetChoice = { toolsets: ['hyphae'] };

interface HydraRoster {
  readonly listResult: PreparedJson;
  readonly hyphae: boolean;
  readonly hydra: ReadonlyMap<string, HydraTool>;
}

const rosters = new Map<string, HydraRoster>();

function hydraRoster(choice: ToolsetChoice): HydraRoster {
  const key = `${choice.toolsets.join(',')}|${choice.legacyTools === true}`;
  const known = rosters.get(key);
  if (known !== undefined) return known;
  const hyphae = choice.toolsets.includes('hyphae');
  const hydraTools = choice.toolsets.includes('hydradb') ? [...HYDRADB_TOOLS, ...(choice.legacyTools === true ? HYDRADB_LEGACY_TOOLS : [])] : [];
  const descriptors = [...(hyphae ? TOOL_DESCRIPTORS : []), ...hydraTools.map((tool) => describeTool({ ...tool, run: unreachable }))];
  const roster = { listResult: new PreparedJson(JSON.stringify({ tools: descriptors })), hyphae, hydra: new Map(hydraTools.map((tool) => [tool.name, tool])) };
  rosters.set(key, roster);
  return roster;
}

/** Describing a tool never runs it. */
function unreachable(): never {
  throw new Error('a descriptor is never run');
}

/** The roster of a choice, its HydraDB tools bound to the connection they are served on. */
export function toolRoster(choice: ToolsetChoice, call: HydraCall = {}): ToolRoster {
  if (!choice.toolsets.includes('hydradb')) return HYPHAE_ROSTER;
  const roster = hydraRoster(choice);
  return {
    listResult: roster.listResult,
    find(name: string): McpTool | undefined {
      const own = roster.hyphae ? findTool(name) : undefined;
      return own ?? roster.hydra.get(name)?.bind(call);
    },
  };
}
