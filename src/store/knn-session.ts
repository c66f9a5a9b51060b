/**
 * The HNSW scan settings a kNN needs, made session-wide: the pg driver runs knnSessionSetup on
 * every connection it opens and PGlite on its single session when it opens. A search with the
 * session's ef_search is then one statement; only a larger one needs a transaction (SET LOCAL),
 * so nothing a search changes outlives it on a pooled connection.
 */
import { InvalidArgumentError } from '../core/errors.js';

/** pgvector ≥ 0.8's hnsw.iterative_scan: keep walking the graph until enough rows pass the filters. */
export const ITERATIVE_SCAN_MODES = ['relaxed_order', 'strict_order', 'off'] as const;
export type IterativeScanMode = (typeof ITERATIVE_SCAN_MODES)[number];

export interface KnnSettings {
  /** hnsw.ef_search: candidates kept while walking the graph (recall against speed). */
  readonly efSearch: number;
  /**
   * hnsw.iterative_scan. relaxed_order (the default) may return rows slightly out of order, which
   * cell search re-sorts; off lets a tenant/project filter starve a result of rows.
   */
  readonly iterativeScan: IterativeScanMode;
  /** hnsw.max_scan_tuples: where an iterative scan gives up (pgvector's default 20000). */
  readonly maxScanTuples: number;
}

export const MAX_EF_SEARCH = 1000;
const MAX_SCAN_TUPLES = 2_147_483_647;

/** Measured on native PostgreSQL at 100k cells (docs/storage.md, `npm run bench pg`). */
export const KNN_DEFAULTS: KnnSettings = { efSearch: 40, iterativeScan: 'relaxed_order', maxScanTuples: 20_000 };

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
