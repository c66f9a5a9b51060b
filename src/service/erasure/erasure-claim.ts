/**
 * What a bulk erasure takes (docs/forgetting.md): the ids of the cells its selector matched when
 * it began, read once in keyset pages and held packed (16 bytes a cell), then handed out in
 * bounded batches. Cells stored after the claim are not taken, so the erasure ends however fast
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
  /** The claimed ids in id order, `size` at a time. */
  batches(size: number): Iterable<string[]>;
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
  return {
    size,
    *batches(batchSize: number): Iterable<string[]> {
      for (const page of pages) {
        const count = page.length / ID_BYTES;
        for (let start = 0; start < count; start += batchSize) {
          yield Array.from({ length: Math.min(batchSize, count - start) }, (_, i) => unpackId(page, start + i));
        }
      }
    },
  };
}

/** `ids` in batches of `size`, in the order given. */
export function* batchesOf(ids: readonly string[], size: number): Iterable<string[]> {
  for (let start = 0; start < ids.length; start += size) yield ids.slice(start, start + size);
}

function packId(id: string): Buffer {
  return Buffer.from(id.replaceAll('-', ''), 'hex');
}

function unpackId(page: Buffer, index: number): string {
  const hex = page.toString('hex', index * ID_BYTES, (index + 1) * ID_BYTES);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
