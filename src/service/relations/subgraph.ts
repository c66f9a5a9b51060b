/** The facade's subgraph: what surrounds a cell, walked breadth-first in one statement (docs/relations.md). */
import { NotFoundError } from '../../core/errors.js';
import { PREVIEW_CHARS } from '../../core/limits.js';
import { subgraphInputSchema, type Subgraph } from '../../core/relation-schemas.js';
import { subgraphOf } from '../../store/subgraph-query.js';
import { readableProjects } from '../facade/authorization.js';
import type { FacadeContext } from '../facade/facade-context.js';
import { parseInput, parseUuid } from '../facade/input-validation.js';
import type { MemoryFacade } from '../memory-facade.js';

export type SubgraphOperations = Pick<MemoryFacade, 'cellSubgraph'>;

export function subgraphOperations(ctx: FacadeContext): SubgraphOperations {
  return {
    async cellSubgraph(principal, nodeId, raw): Promise<Subgraph> {
      const id = parseUuid('node_id', nodeId);
      const input = parseInput(subgraphInputSchema, raw);
      // The start cell's visibility, and every member's, is checked inside the statement.
      const rows = await subgraphOf(ctx.db, {
        tenantId: principal.tenantId,
        projects: readableProjects(principal),
        startNodeId: id,
        depth: input.depth,
        maxMembers: input.max_members,
        relationTypes: input.relation_types ?? null,
        previewChars: PREVIEW_CHARS,
        at: input.as_of === undefined ? ctx.clock() : new Date(input.as_of),
      });
      if (rows === null) throw new NotFoundError('cell', id);
      return { node_id: id, ...rows };
    },
  };
}
