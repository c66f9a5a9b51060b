/**
 * `hyphae mcp --toolset …`: which toolsets a stdio launch serves (the flag, else HYPHAE_MCP_TOOLSETS),
 * the key it runs as (HYPHAE_API_KEY, else HYDRADB_API_KEY for HydraDB client configurations), and
 * the HydraDB connection its environment names, checked against that key once at start.
 */
import type { HyphaeConfig } from '../core/config.js';
import { hydraEnvironment, type HydraEnvironment } from '../core/config/hydradb-environment.js';
import { toolsetList } from '../core/config/toolset-settings.js';
import { InvalidArgumentError } from '../core/errors.js';
import type { Principal } from '../core/principal.js';
import { GRAPH_TOOLS_NOT_OFFERED, projectOfCall } from '../mcp/index.js';
import type { HydraCall, ToolsetChoice } from '../mcp/index.js';

export interface StdioToolsets {
  readonly choice: ToolsetChoice;
  readonly apiKey: string | undefined;
  readonly hydra: HydraEnvironment;
}

/** Reads the flag and the settings; deprecated names and the graph-tools request are each told once on `log`. */
export function stdioToolsets(config: HyphaeConfig, flag: string | boolean | undefined, log: (line: string) => void): StdioToolsets {
  let toolsets = config.mcpToolsets.toolsets;
  if (typeof flag === 'string') {
    const parsed = toolsetList.safeParse(flag);
    if (!parsed.success) throw new InvalidArgumentError(`--toolset takes a comma list of hyphae, hydradb (got "${flag}")`);
    toolsets = parsed.data;
  }
  const hydra = hydraEnvironment(config.mcpToolsets);
  const serving = toolsets.includes('hydradb');
  if (serving) for (const warning of hydra.warnings) log(warning);
  if (serving && config.mcpToolsets.graphTools === true) log(GRAPH_TOOLS_NOT_OFFERED);
  return { choice: { toolsets, legacyTools: config.mcpToolsets.legacyTools }, apiKey: config.keys.apiKey ?? (serving ? hydra.apiKey : undefined), hydra };
}

/** The launch's HydraDB defaults, refused at start when they name another database or a collection outside the key's scope. */
export function stdioHydraCall(principal: Principal, hydra: HydraEnvironment): HydraCall {
  const call = { ...(hydra.database === undefined ? {} : { database: hydra.database }), ...(hydra.collection === undefined ? {} : { collection: hydra.collection }) };
  projectOfCall(principal, call, {});
  return call;
}

/** HYDRADB_LOG_LEVEL WARN or ERROR keeps the start line off stderr (problems are always told). */
export function printsStartLine(hydra: HydraEnvironment): boolean {
  return hydra.logLevel === undefined || hydra.logLevel === 'DEBUG' || hydra.logLevel === 'INFO';
}

/** What `--remote` sends the server for the HydraDB toolset: the launch's database and collection as the X-HydraDB-* headers. */
export function bridgedHydraHeaders(launch: StdioToolsets): Record<string, string> {
  if (!launch.choice.toolsets.includes('hydradb')) return {};
  const { database, collection } = launch.hydra;
  return { ...(database === undefined ? {} : { 'x-hydradb-database': database }), ...(collection === undefined ? {} : { 'x-hydradb-collection': collection }) };
}
