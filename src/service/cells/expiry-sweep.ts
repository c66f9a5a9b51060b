/**
 * The expiry sweep (docs/expiry.md): a maintenance pass that physically deletes what has expired —
 * cells, then sources with their chunks — through the erasure path, tenant by tenant, in batches
 * until nothing due is left. Reads already stopped returning these items at their expiry; the
 * sweep frees the rows and tells those who received a diff of a cell that it is gone.
 */
import { expiredCells, expiredSources, type ExpiredCell } from '../../store/expiry-repository.js';
import type { Queryable } from '../../store/db.js';

/** How the sweep deletes what expired: the facade's erasure path (one receipt per call). */
export interface ExpiredItemEraser {
  /** Erases these expired cells of one tenant; returns how many it erased. */
  cells(tenantId: string, nodeIds: readonly string[]): Promise<number>;
  /** Erases an expired source of one tenant with its chunks. */
  source(tenantId: string, project: string, sourceId: string): Promise<void>;
}

export interface ExpirySweep {
  readonly cells: number;
  readonly sources: number;
}

/** Items one pass reads per statement; a pass repeats until a read comes back short. */
export const EXPIRY_SWEEP_BATCH = 500;

/** One pass: every cell and source expired by now, erased; returns the counts. */
export async function sweepExpired(db: Queryable, eraser: ExpiredItemEraser, batch: number = EXPIRY_SWEEP_BATCH): Promise<ExpirySweep> {
  let cells = 0;
  let sources = 0;
  for (;;) {
    const due = await expiredSources(db, batch);
    for (const source of due) await eraser.source(source.tenant_id, source.project, source.source_id);
    sources += due.length;
    if (due.length < batch) break;
  }
  for (;;) {
    const due = await expiredCells(db, batch);
    for (const [tenantId, nodeIds] of byTenant(due)) cells += await eraser.cells(tenantId, nodeIds);
    // An id a concurrent sweep (another replica) erased first is not counted twice, and does not come back.
    if (due.length < batch) break;
  }
  return { cells, sources };
}

function byTenant(rows: readonly ExpiredCell[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const row of rows) groups.set(row.tenant_id, [...(groups.get(row.tenant_id) ?? []), row.node_id]);
  return groups;
}
