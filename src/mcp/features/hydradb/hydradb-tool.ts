/**
 * One HydraDB tool (docs/coming-from-hydradb.md): defined once like the eleven (tools/tool-definition.ts),
 * but run with the connection it is served on — a stdio launch's environment or one HTTP request's
 * headers — which supplies the default database and collection.
 */
import { z } from 'zod';
import type { Principal } from '../../../core/principal.js';
import { projectSchema } from '../../../core/schemas.js';
import type { MemoryFacade } from '../../../service/memory-facade.js';
import type { McpTool, McpToolSpec, ToolOutcome } from '../tools/tool-definition.js';
import type { HydraConnection } from './hydradb-scope.js';
import type { SourceLinks } from './source-links.js';

/** What a HydraDB tool runs with besides its arguments. */
export interface HydraCall extends HydraConnection {
  /** Mints `hydradb_inspect` download links; absent where no HTTP server serves them (stdio). */
  readonly links?: SourceLinks;
}

export interface HydraToolSpec<I extends z.ZodType, O extends z.ZodType> extends Omit<McpToolSpec<I, O>, 'run'> {
  run(facade: MemoryFacade, principal: Principal, args: z.output<I>, call: HydraCall): Promise<ToolOutcome<z.output<O>>>;
}

/** A HydraDB tool with its types erased; `bind` makes the tool a registry serves on one connection. */
export interface HydraTool extends Omit<McpTool, 'run'> {
  bind(call: HydraCall): McpTool;
}

export function defineHydraTool<I extends z.ZodType, O extends z.ZodType>(spec: HydraToolSpec<I, O>): HydraTool {
  const { run, ...shape } = spec;
  // Arguments reach run() only after spec.input parsed them, so the cast restores a proven type.
  return { ...shape, bind: (call) => ({ ...shape, run: (facade, principal, args) => run(facade, principal, args as z.output<I>, call) }) };
}

/** The same tool under another name and description (a deprecated `hydra_db_*` alias). */
export function renamedTool(tool: HydraTool, name: string, description: string): HydraTool {
  return { ...tool, name, description };
}

/** The scope overrides every HydraDB tool accepts (hydradb-scope.ts says what each may name). */
export const scopeFields = {
  database: z.string().min(1).max(128).optional().describe('Your database: the tenant of your key (naming another is refused); default: the connection’s'),
  collection: projectSchema.optional().describe('A collection (project) within your key’s scope; default: the connection’s, else your current project'),
};
