/** The shape of one MCP tool: defined once, from which its descriptor and its handler both come. */
import type { z } from 'zod';
import type { Principal } from '../../../core/principal.js';
import type { MemoryFacade } from '../../../service/memory-facade.js';
import type { CellLink } from '../resources/cell-presentation.js';

export interface ToolAnnotations {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: false;
}

/** What a tool call produced: its structuredContent, and the cells it names (one resource_link each). */
export interface ToolOutcome<T> {
  readonly structured: T;
  readonly links: readonly CellLink[];
  /** The text block, when the tool writes its own (HydraDB tools); absent: structuredContent's JSON. */
  readonly text?: string;
}

/** A result that names no cell. */
export function unlinked<T>(structured: T): ToolOutcome<T> {
  return { structured, links: [] };
}

export interface McpToolSpec<I extends z.ZodType, O extends z.ZodType> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly input: I;
  readonly output: O;
  readonly annotations: ToolAnnotations;
  run(facade: MemoryFacade, principal: Principal, args: z.output<I>): Promise<ToolOutcome<z.output<O>>>;
}

/** A tool with its types erased so the registry can hold all eleven in one table. */
export interface McpTool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly input: z.ZodType;
  readonly output: z.ZodType;
  readonly annotations: ToolAnnotations;
  run(facade: MemoryFacade, principal: Principal, args: unknown): Promise<ToolOutcome<unknown>>;
}

export function defineTool<I extends z.ZodType, O extends z.ZodType>(spec: McpToolSpec<I, O>): McpTool {
  // Arguments reach run() only after spec.input parsed them, so the cast restores a proven type.
  return { ...spec, run: (facade, principal, args) => spec.run(facade, principal, args as z.output<I>) };
}
