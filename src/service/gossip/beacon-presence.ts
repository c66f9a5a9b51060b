/**
 * Whether a tenant holds any beacon, remembered when this process owns the database alone (the
 * embedded folder, whose lock keeps every other process out), so a store in a tenant without
 * beacons — most of them, embedded — runs no beacon statement at all. Only a placement turns the
 * answer from no to yes, and it passes here inside its transaction (PGlite runs one at a time, so
 * no store reads the old answer after that placement commits); a yes stays yes (a deleted or
 * expired beacon only makes a match find nothing). Shared databases ask every time.
 */
import type { Queryable } from '../../store/db.js';
import { tenantHasBeacons } from '../../store/beacon-repository.js';

/** Tenants remembered at most; past it the memory starts over. */
const MAX_REMEMBERED_TENANTS = 10_000;

export class BeaconPresence {
  private readonly known = new Map<string, boolean>();

  constructor(private readonly ownsDatabase: boolean) {}

  /** False only when the tenant is known to hold no beacon, so matching can be skipped. */
  async mayHaveBeacons(q: Queryable, tenantId: string): Promise<boolean> {
    if (!this.ownsDatabase) return true;
    const known = this.known.get(tenantId);
    if (known !== undefined) return known;
    const holds = await tenantHasBeacons(q, tenantId);
    if (this.known.size >= MAX_REMEMBERED_TENANTS) this.known.clear();
    this.known.set(tenantId, holds);
    return holds;
  }

  /** A beacon is being placed in the tenant (called inside the placing transaction). */
  placed(tenantId: string): void {
    if (this.ownsDatabase) this.known.set(tenantId, true);
  }
}
