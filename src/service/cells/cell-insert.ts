/** The one path a new cell of the facade takes into the store: the tenant's cell quota, then the insert, authored by the principal. */
import { randomUUID } from 'node:crypto';
import type { Principal } from '../../core/principal.js';
import { insertCell, type NewCell } from '../../store/cell-repository.js';
import type { CellRow } from '../../store/cell-row.js';
import type { Queryable } from '../../store/db.js';
import type { FacadeContext } from '../facade/facade-context.js';

/** What the caller decides of a new cell; its id, tenant, author and trust come from the principal. */
export type CellDraft = Omit<NewCell, 'nodeId' | 'tenantId' | 'sourceAgent' | 'originNodeId' | 'trust' | 'now'>;

/** Inserts the cell inside `tx`; null when the author's idempotency key already has a cell (a concurrent replay won). */
export async function insertNewCell(ctx: FacadeContext, tx: Queryable, principal: Principal, draft: CellDraft, now: Date): Promise<CellRow | null> {
  await ctx.quotas.admitCell(tx, principal.tenantId);
  return insertCell(tx, {
    ...draft,
    nodeId: randomUUID(),
    tenantId: principal.tenantId,
    sourceAgent: principal.agent,
    originNodeId: null,
    trust: principal.trust,
    now,
  });
}
