/** The facade's explicit relations: add some to a cell, delete one (docs/relations.md). Roles: operation-roles.ts. */
import { NotFoundError } from '../../core/errors.js';
import { addRelationsInputSchema, deleteRelationInputSchema, type CellRelations } from '../../core/relation-schemas.js';
import type { Principal } from '../../core/principal.js';
import type { WrittenDiff } from '../../mesh/diff-writer.js';
import type { CellRow } from '../../store/cell-row.js';
import type { Queryable } from '../../store/db.js';
import { cellEmbeddingOf, deleteRelation, lockRelationsFrom, relationsFrom } from '../../store/relation-repository.js';
import type { FacadeContext } from '../facade/facade-context.js';
import { cellChange } from '../gossip/gossip-writer.js';
import { visibleCell } from '../facade/visibility.js';
import { readableProjects } from '../facade/authorization.js';
import { parseInput, parseUuid } from '../facade/input-validation.js';
import type { MemoryFacade } from '../memory-facade.js';
import { declareRelations } from './declared-relations.js';

export type RelationOperations = Pick<MemoryFacade, 'addRelations' | 'deleteRelation' | 'cellRelations'>;

/** Gossip of a change to the cell's relations, told by the agent who made it (inside the changing transaction). */
async function relationsChanged(ctx: FacadeContext, tx: Queryable, principal: Principal, cell: CellRow, now: Date): Promise<WrittenDiff[]> {
  const embedding = await cellEmbeddingOf(tx, principal.tenantId, cell.node_id);
  if (embedding === null) return [];
  return ctx.gossip.emitRelationsChanged(tx, { ...cellChange(cell, embedding), sourceAgent: principal.agent }, now);
}

export function relationOperations(ctx: FacadeContext): RelationOperations {
  return {
    async cellRelations(principal, nodeId): Promise<CellRelations> {
      const id = parseUuid('node_id', nodeId);
      await visibleCell(ctx.db, principal, id);
      return { node_id: id, relations: await relationsFrom(ctx.db, principal.tenantId, id, readableProjects(principal)) };
    },

    async addRelations(principal, nodeId, raw): Promise<CellRelations> {
      const id = parseUuid('node_id', nodeId);
      const input = parseInput(addRelationsInputSchema, raw);
      const now = ctx.clock();
      const { answer, diffs } = await ctx.db.transaction(async (tx) => {
        const cell = await visibleCell(tx, principal, id);
        // Concurrent additions to one cell count each other against the bound.
        await lockRelationsFrom(tx, id);
        const added = await declareRelations(tx, principal, id, input.relations, now);
        return {
          answer: { node_id: id, relations: await relationsFrom(tx, principal.tenantId, id, readableProjects(principal)) },
          diffs: added.length > 0 ? await relationsChanged(ctx, tx, principal, cell, now) : [],
        };
      });
      ctx.diffsCommitted(diffs);
      return answer;
    },

    async deleteRelation(principal, nodeId, raw): Promise<void> {
      const id = parseUuid('node_id', nodeId);
      const input = parseInput(deleteRelationInputSchema, raw);
      const now = ctx.clock();
      const diffs = await ctx.db.transaction(async (tx) => {
        const cell = await visibleCell(tx, principal, id);
        const deleted = await deleteRelation(tx, principal.tenantId, id, { to: input.to.toLowerCase(), type: input.type }, readableProjects(principal));
        if (!deleted) throw new NotFoundError('relation', `${id} ${input.type} ${input.to.toLowerCase()}`);
        return relationsChanged(ctx, tx, principal, cell, now);
      });
      ctx.diffsCommitted(diffs);
    },
  };
}
