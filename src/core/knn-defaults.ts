/**
 * The HNSW scan settings of every database session, and their defaults: pure values shared by
 * the configuration (HYPHAE_HNSW_*) and the store that applies them (src/store/knn-session.ts).
 */

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
export const MAX_SCAN_TUPLES = 2_147_483_647;

/** Measured on native PostgreSQL at 100k cells (docs/storage.md, `npm run bench pg`). */
export const KNN_DEFAULTS: KnnSettings = { efSearch: 40, iterativeScan: 'relaxed_order', maxScanTuples: 20_000 };
