/**
 * What a bulk erasure takes (docs/forgetting.md): the ids of the cells its selector matched when
 * it began, read once in keyset pages and held packed (16 bytes a cell), then handed out in
 * batches of the size the erasure asks for. Cells stored after the claim are not taken, so the erasure ends however fast
 * others keep storing; selecting the next batch again after each one would chase them.
 */
import type { Queryable } from '../../store/db.js';
import { claimCellIds, type CellBatchFilter } from '../../store/erasure-repository.js';

/** Ids one claim query reads; each page is one turn on the connection. */
const CLAIM_PAGE = 10_000;
const ID_BYTES = 16;

export interface CellClaim {
  /** How many cells were claimed. */
  readonly size: number;
  /** The next `count` claimed ids (fewer at the end, none once all were taken), in id order. */
  take(count: number): string[];
}

/** Claims the tenant's cells matching `filter`, page by page, before any of them is erased. */
export async function claimCells(q: Queryable, tenantId: string, filter: CellBatchFilter): Promise<CellClaim> {
  const pages: Buffer[] = [];
  let size = 0;
  for (let after: string | null = null; ; ) {
    const ids = await claimCellIds(q, tenantId, filter, after, CLAIM_PAGE);
    if (ids.length > 0) pages.push(Buffer.concat(ids.map(packId)));
    size += ids.length;
    after = ids.at(-1) ?? null;
    if (ids.length < CLAIM_PAGE) break;
  }
  const packed = Buffer.concat(pages);
  let taken = 0;
  return {
    size,
    take(count: number): string[] {
      const ids = Array.from({ length: Math.max(0, Math.min(count, size - taken)) }, (_, i) => unpackId(packed, taken + i));
      taken += ids.length;
      return ids;
    },
  };
}

/** A claim of ids the caller already holds (expiry, a scene, a source locator), taken in the order given. */
export function claimOf(ids: readonly string[]): CellClaim {
  let taken = 0;
  return {
    size: ids.length,
    take(count: number): string[] {
      const batch = ids.slice(taken, taken + Math.max(0, count));
      taken += batch.length;
      return batch;
    },
  };
}

function packId(id: string): Buffer {
  return Buffer.from(id.replaceAll('-', ''), 'hex');
}

function unpackId(page: Buffer, index: number): string {
  const hex = page.toString('hex', index * ID_BYTES, (index + 1) * ID_BYTES);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
