/**
 * kNN over cells with pgvector's HNSW index. The iterative scan (pgvector ≥ 0.8) keeps walking
 * the graph until k rows pass the tenant/project/layer filters, so filters never starve a result;
 * relaxed order is re-sorted here. Settings are transaction-local, so the search runs in its own
 * short read-only transaction.
 */
import type { CellType, Layer } from '../core/cell-types.js';
import { nearestCells, type KnnHit } from '../store/cell-repository.js';
import type { Db } from '../store/db.js';

export interface CellSearch {
  readonly tenantId: string;
  readonly project: string;
  readonly layer: Layer;
  readonly k: number;
  readonly cellTypes?: readonly CellType[];
  readonly sceneId?: string;
}

const MIN_EF_SEARCH = 40;
const MAX_EF_SEARCH = 1000;

export async function searchCells(db: Db, vector: string, search: CellSearch): Promise<KnnHit[]> {
  const efSearch = String(Math.min(MAX_EF_SEARCH, Math.max(MIN_EF_SEARCH, search.k * 2)));
  const hits = await db.transaction(async (tx) => {
    await tx.query(`SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', $1, true)`, [efSearch]);
    return nearestCells(tx, vector, search, search.k);
  });
  return hits.sort((a, b) => a.distance - b.distance);
}
