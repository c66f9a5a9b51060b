/**
 * kNN over cells with pgvector's HNSW index. The iterative scan (pgvector ≥ 0.8) keeps walking
 * the graph until k rows pass the tenant/project/layer filters, so filters never starve a
 * result; relaxed order is re-sorted here. On PGlite — one session, this process's own — the
 * scan settings are made session-wide once and a search is a single statement; on a pooled
 * server they are set transaction-locally so nothing leaks to other users of a connection.
 */
import { nearestCells, type KnnFilter, type KnnHit } from '../store/cell-repository.js';
import type { Db } from '../store/db.js';

const MIN_EF_SEARCH = 40;
const MAX_EF_SEARCH = 1000;
const preparedSessions = new WeakSet<Db>();

export async function searchCells(db: Db, vector: string, filter: KnnFilter, k: number): Promise<KnnHit[]> {
  let hits: KnnHit[];
  if (db.driver === 'pglite') {
    if (!preparedSessions.has(db)) {
      await db.query(`SELECT set_config('hnsw.iterative_scan', 'relaxed_order', false)`);
      preparedSessions.add(db);
    }
    hits = await nearestCells(db, vector, filter, k);
  } else {
    const efSearch = String(Math.min(MAX_EF_SEARCH, Math.max(MIN_EF_SEARCH, k * 2)));
    hits = await db.transaction(async (tx) => {
      await tx.query(`SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', $1, true)`, [efSearch]);
      return nearestCells(tx, vector, filter, k);
    });
  }
  return hits.sort((a, b) => a.distance - b.distance);
}
