/** What `hyphae serve` hands /mcp from its configuration: the default toolsets and the HydraDB defaults (docs/coming-from-hydradb.md). */
import type { HyphaeConfig } from '../core/config.js';
import { hydraEnvironment } from '../core/config/hydradb-environment.js';
import type { HydraConnection, ToolsetChoice } from '../mcp/index.js';

export function serveToolsets(config: HyphaeConfig): { readonly toolsets: ToolsetChoice; readonly hydradb: HydraConnection; readonly linkSecret?: string } {
  const hydra = hydraEnvironment(config.mcpToolsets);
  return {
    ...(config.mcpToolsets.linkSecret === undefined ? {} : { linkSecret: config.mcpToolsets.linkSecret }),
    toolsets: { toolsets: config.mcpToolsets.toolsets, legacyTools: config.mcpToolsets.legacyTools },
    hydradb: { ...(hydra.database === undefined ? {} : { database: hydra.database }), ...(hydra.collection === undefined ? {} : { collection: hydra.collection }) },
  };
}
