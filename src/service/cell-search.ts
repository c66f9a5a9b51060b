/**
 * kNN over cells with pgvector's HNSW index. The iterative scan (pgvector ≥ 0.8) keeps walking
 * the graph until k rows pass the tenant/project/layer filters, so filters never starve a
 * result; relaxed order is re-sorted here. Both drivers' sessions carry the scan settings
 * (src/store/knn-session.ts: the pg driver sets them on connect, PGlite here once), so a search
 * is a single statement unless k asks for a larger ef_search, which is set transaction-locally
 * so nothing leaks to other users of a pooled connection.
 */
import { nearestCells, type KnnFilter, type KnnHit } from '../store/cell-repository.js';
import type { Db } from '../store/db.js';
import { KNN_SESSION_EF_SEARCH, KNN_SESSION_SETUP } from '../store/knn-session.js';

const MAX_EF_SEARCH = 1000;
const preparedSessions = new WeakSet<Db>();

export async function searchCells(db: Db, vector: string, filter: KnnFilter, k: number): Promise<KnnHit[]> {
  if (db.driver === 'pglite' && !preparedSessions.has(db)) {
    await db.query(KNN_SESSION_SETUP);
    preparedSessions.add(db);
  }
  const efSearch = Math.min(MAX_EF_SEARCH, Math.max(KNN_SESSION_EF_SEARCH, k * 2));
  const hits =
    efSearch === KNN_SESSION_EF_SEARCH
      ? await nearestCells(db, vector, filter, k)
      : await db.transaction(async (tx) => {
          await tx.query(`SELECT set_config('hnsw.ef_search', $1, true)`, [String(efSearch)]);
          return nearestCells(tx, vector, filter, k);
        });
  return hits.sort((a, b) => a.distance - b.distance);
}
