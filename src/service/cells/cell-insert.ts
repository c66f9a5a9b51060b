/**
 * The one path a new cell of the facade takes into the store: the tenant's cell quota, then the
 * insert, authored by the principal, with the relations it declares written by the same statement.
 */
import { randomUUID } from 'node:crypto';
import type { Principal } from '../../core/principal.js';
import type { RelationInput } from '../../core/relation-schemas.js';
import { insertCell, type NewCell } from '../../store/cell-repository.js';
import type { CellRow } from '../../store/cell-row.js';
import type { Queryable } from '../../store/db.js';
import { insertCellRelating } from '../../store/relation-repository.js';
import { readableProjects } from '../facade/authorization.js';
import type { FacadeContext } from '../facade/facade-context.js';
import { refuseUnreadable } from '../relations/declared-relations.js';

/** What the caller decides of a new cell; its id, tenant, author and trust come from the principal. */
export type CellDraft = Omit<NewCell, 'nodeId' | 'tenantId' | 'sourceAgent' | 'originNodeId' | 'trust' | 'now'>;

/**
 * Inserts the cell inside `tx` with `relations` (checkedRelations' output) to cells the principal
 * can read — a target it cannot read is NOT_FOUND, as a random id; null when the author's
 * idempotency key already has a cell (a concurrent replay won).
 */
export async function insertNewCell(
  ctx: FacadeContext,
  tx: Queryable,
  principal: Principal,
  draft: CellDraft,
  now: Date,
  relations: readonly RelationInput[] = [],
): Promise<CellRow | null> {
  await ctx.quotas.admitCell(tx, principal.tenantId);
  const cell: NewCell = { ...draft, nodeId: randomUUID(), tenantId: principal.tenantId, sourceAgent: principal.agent, originNodeId: null, trust: principal.trust, now };
  if (relations.length === 0) return insertCell(tx, cell);
  const made = await insertCellRelating(tx, cell, relations, readableProjects(principal));
  if (made === null) return null;
  refuseUnreadable(relations, made.readable);
  return made.row;
}
