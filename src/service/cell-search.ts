/**
 * kNN over cells with pgvector's HNSW index. The iterative scan (pgvector ≥ 0.8) keeps walking
 * the graph until k rows pass the tenant/project/layer filters, so filters never starve a
 * result; relaxed order is re-sorted here. Every session of the database carries the scan
 * settings (db.knn, set by the driver: src/store/knn-session.ts), so a search is a single
 * statement unless k asks for a larger ef_search, which is set transaction-locally so nothing
 * leaks to other users of a pooled connection.
 */
import { nearestCells, type KnnFilter, type KnnHit } from '../store/cell-repository.js';
import type { Db } from '../store/db.js';
import { MAX_EF_SEARCH } from '../store/knn-session.js';
import type { VectorParam } from '../store/vector-param.js';

export async function searchCells(db: Db, vector: VectorParam, filter: KnnFilter, k: number, withCells = false): Promise<KnnHit[]> {
  const sessionEfSearch = db.knn.efSearch;
  const efSearch = Math.min(MAX_EF_SEARCH, Math.max(sessionEfSearch, k * 2));
  const hits =
    efSearch === sessionEfSearch
      ? await nearestCells(db, vector, filter, k, withCells)
      : await db.transaction(async (tx) => {
          await tx.query(`SELECT set_config('hnsw.ef_search', $1, true)`, [String(efSearch)]);
          return nearestCells(tx, vector, filter, k, withCells);
        });
  return hits.sort((a, b) => a.distance - b.distance);
}
