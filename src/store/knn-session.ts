/**
 * The HNSW scan settings a kNN needs, made session-wide: the pg driver runs knnSessionSetup on
 * every connection it opens and PGlite on its single session when it opens. A search with the
 * session's ef_search is then one statement; only a larger one needs a transaction (SET LOCAL),
 * so nothing a search changes outlives it on a pooled connection.
 */
import { InvalidArgumentError } from '../core/errors.js';
import type { Queryable } from './db.js';

import { ITERATIVE_SCAN_MODES, KNN_DEFAULTS, MAX_EF_SEARCH, MAX_SCAN_TUPLES, type IterativeScanMode, type KnnSettings } from '../core/knn-defaults.js';

export { ITERATIVE_SCAN_MODES, KNN_DEFAULTS, MAX_EF_SEARCH };
export type { IterativeScanMode, KnnSettings };

/** The settings with defaults filled in, checked (they end up in SQL text). */
export function knnSettings(overrides: Partial<KnnSettings> = {}): KnnSettings {
  const settings = { ...KNN_DEFAULTS, ...overrides };
  const bad = (path: string, message: string): InvalidArgumentError => new InvalidArgumentError(`invalid kNN setting ${path}: ${message}`, [{ path, message }]);
  if (!Number.isInteger(settings.efSearch) || settings.efSearch < 1 || settings.efSearch > MAX_EF_SEARCH) throw bad('efSearch', `an integer in [1, ${MAX_EF_SEARCH}]`);
  if (!ITERATIVE_SCAN_MODES.includes(settings.iterativeScan)) throw bad('iterativeScan', ITERATIVE_SCAN_MODES.join(', '));
  if (!Number.isInteger(settings.maxScanTuples) || settings.maxScanTuples < 1 || settings.maxScanTuples > MAX_SCAN_TUPLES) throw bad('maxScanTuples', 'a positive integer');
  return settings;
}

/** One statement that gives a session the settings. */
export function knnSessionSetup(checked: KnnSettings): string {
  const settings = knnSettings(checked);
  return `SELECT set_config('hnsw.iterative_scan', '${settings.iterativeScan}', false), set_config('hnsw.ef_search', '${settings.efSearch}', false), set_config('hnsw.max_scan_tuples', '${settings.maxScanTuples}', false)`;
}

/** Sets hnsw.ef_search for the rest of the transaction `tx` only (it reverts at commit or rollback). */
export async function setTransactionEfSearch(tx: Queryable, efSearch: number): Promise<void> {
  await tx.query(`SELECT set_config('hnsw.ef_search', $1, true)`, [String(efSearch)]);
}
