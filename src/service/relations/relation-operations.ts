/** The facade's explicit relations: add some to a cell, delete one (docs/relations.md). Roles: operation-roles.ts. */
import { NotFoundError } from '../../core/errors.js';
import { addRelationsInputSchema, deleteRelationInputSchema, type CellRelations } from '../../core/relation-schemas.js';
import { deleteRelation, lockRelationsFrom, relationsFrom } from '../../store/relation-repository.js';
import type { FacadeContext } from '../facade/facade-context.js';
import { visibleCell } from '../facade/visibility.js';
import { readableProjects } from '../facade/authorization.js';
import { parseInput, parseUuid } from '../facade/input-validation.js';
import type { MemoryFacade } from '../memory-facade.js';
import { declareRelations } from './declared-relations.js';

export type RelationOperations = Pick<MemoryFacade, 'addRelations' | 'deleteRelation' | 'cellRelations'>;

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
      return ctx.db.transaction(async (tx) => {
        await visibleCell(tx, principal, id);
        // Concurrent additions to one cell count each other against the bound.
        await lockRelationsFrom(tx, id);
        await declareRelations(tx, principal, id, input.relations, now);
        return { node_id: id, relations: await relationsFrom(tx, principal.tenantId, id, readableProjects(principal)) };
      });
    },

    async deleteRelation(principal, nodeId, raw): Promise<void> {
      const id = parseUuid('node_id', nodeId);
      const input = parseInput(deleteRelationInputSchema, raw);
      await ctx.db.transaction(async (tx) => {
        await visibleCell(tx, principal, id);
        const deleted = await deleteRelation(tx, principal.tenantId, id, { to: input.to.toLowerCase(), type: input.type });
        if (!deleted) throw new NotFoundError('relation', `${id} ${input.type} ${input.to.toLowerCase()}`);
      });
    },
  };
}
