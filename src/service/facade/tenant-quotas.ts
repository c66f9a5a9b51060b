/**
 * Quotas the facade checks inside its write transactions, before anything is written
 * (docs/security.md, limits): cells per tenant and open sessions per agent. One more is a CONFLICT naming the
 * quota and its limit; the transaction rolls back, so nothing of the refused write remains.
 *
 * Sessions are few per agent, so they are counted exactly, under an advisory lock per agent.
 * Cells may be millions per tenant, and a count reads every one of them (1.4 s at a million, under
 * load), so a store does not count them every time: each process remembers the last count per
 * tenant plus what it inserted since, and counts again (exactly, under an advisory lock per tenant)
 * once that estimate passes a tenth of the limit below it, or a tenth of the room that count left,
 * or is older than CELL_RECOUNT_MS. Within ten cells of the limit every store counts; ten
 * processes or fewer, each storing at most a tenth of the room it saw, cannot pass the limit.
 */
import { ConflictError } from '../../core/errors.js';
import type { Queryable } from '../../store/db.js';
import { countOpenSessions, countTenantCells, lockAgentSessions, lockTenantCells } from '../../store/quota-repository.js';

export interface TenantQuotaLimits {
  /** Cells (every layer and version) one tenant may hold. */
  readonly maxCellsPerTenant: number;
  /** Sessions one agent may hold open at once in a tenant. */
  readonly maxOpenSessionsPerAgent: number;
}

/** How long a tenant's remembered cell count is trusted far from the limit. */
const CELL_RECOUNT_MS = 10_000;

interface CellEstimate {
  count: number;
  /** Stores are admitted on the estimate while it stays below this; then the process counts again. */
  readonly trustedBelow: number;
  readonly countedAt: number;
}

export class TenantQuotas {
  private readonly cells = new Map<string, CellEstimate>();

  constructor(
    private readonly limits: TenantQuotaLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** Admits one more cell for the tenant, or throws CONFLICT (quota cells_per_tenant). */
  async admitCell(tx: Queryable, tenantId: string): Promise<void> {
    const limit = this.limits.maxCellsPerTenant;
    const known = this.cells.get(tenantId);
    if (known !== undefined && known.count + 1 < known.trustedBelow && this.now() - known.countedAt < CELL_RECOUNT_MS) {
      known.count += 1;
      return;
    }
    await lockTenantCells(tx, tenantId);
    const count = await countTenantCells(tx, tenantId, limit);
    if (count >= limit) {
      this.cells.set(tenantId, { count, trustedBelow: count, countedAt: this.now() });
      throw new ConflictError(`this tenant holds ${limit} cells, its limit; delete cells before storing more`, {
        details: { quota: 'cells_per_tenant', limit },
      });
    }
    const margin = Math.max(1, Math.floor(limit / 10));
    const trustedBelow = Math.max(limit - margin, count + 1 + Math.floor((limit - count - 1) / 10));
    this.cells.set(tenantId, { count: count + 1, trustedBelow, countedAt: this.now() });
  }

  /** `count` cells were inserted after an exact count admitted them all (a source's chunks): the estimate grows by them, with no count per cell. */
  inserted(tenantId: string, count: number): void {
    const known = this.cells.get(tenantId);
    if (known !== undefined) known.count += count;
  }

  /** Admits one more open session for the agent, or throws CONFLICT (quota open_sessions_per_agent). */
  async admitSession(tx: Queryable, tenantId: string, agent: string): Promise<void> {
    const limit = this.limits.maxOpenSessionsPerAgent;
    await lockAgentSessions(tx, tenantId, agent);
    if ((await countOpenSessions(tx, tenantId, agent, limit)) >= limit) {
      throw new ConflictError(`this agent already has ${limit} open sessions, the limit; close one first`, {
        details: { quota: 'open_sessions_per_agent', limit },
      });
    }
  }
}
