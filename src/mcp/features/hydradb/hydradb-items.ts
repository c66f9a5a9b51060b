/**
 * What a HydraDB id names here: a source (its source_id, in the call's project) or, for a memory
 * stored as a plain cell, that cell (its node_id). Ids are looked up as sources first; a UUID that
 * names no source is then looked up as a cell. Another tenant's id, or one outside the caller's
 * scope, reads as not found like an id that never existed.
 */
import { isHyphaeError } from '../../../core/errors.js';
import type { MemoryNode } from '../../../core/entities.js';
import type { Principal } from '../../../core/principal.js';
import type { SourceSlice } from '../../../core/source-schemas.js';
import type { MemoryFacade } from '../../../service/memory-facade.js';

export type HydraItem =
  | { readonly kind: 'source'; readonly source: SourceSlice }
  | { readonly kind: 'cell'; readonly node: MemoryNode };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** NOT_FOUND answers null; every other error is the caller's. */
async function orNull<T>(work: Promise<T>): Promise<T | null> {
  try {
    return await work;
  } catch (error) {
    if (isHyphaeError(error) && error.code === 'NOT_FOUND') return null;
    throw error;
  }
}

/** The item an id names (a slice of a source from `offset`, at most `limit` characters), or null. */
export async function findItem(
  facade: MemoryFacade,
  principal: Principal,
  id: string,
  project: string | undefined,
  slice: { readonly offset: number; readonly limit: number } = { offset: 0, limit: 1 },
): Promise<HydraItem | null> {
  const source = await orNull(facade.readSource(principal, { source_id: id, offset: slice.offset, limit: slice.limit, ...(project === undefined ? {} : { project }) }));
  if (source !== null) return { kind: 'source', source };
  if (!UUID.test(id)) return null;
  const node = await orNull(facade.getCell(principal, id));
  if (node === null || (project !== undefined && node.project !== project)) return null;
  return { kind: 'cell', node };
}

/** A plain cell is a memory; a source is of its own kind. */
export function itemKind(item: HydraItem): 'memory' | 'knowledge' {
  return item.kind === 'cell' ? 'memory' : item.source.kind;
}

/** What a query result calls an item: a chunk by its source, any other cell by itself. */
export function itemIdOf(nodeId: string, source: { readonly source_id: string } | undefined): string {
  return source === undefined ? nodeId : source.source_id;
}
