/**
 * The HNSW scan settings a kNN needs, made session-wide: the pg driver runs KNN_SESSION_SETUP on
 * every connection it opens, and cell search runs it once on PGlite's single session. A search
 * with the session's ef_search is then one statement; only another ef_search needs a transaction
 * (SET LOCAL), so nothing a search changes outlives it on a pooled connection.
 */
export const KNN_SESSION_EF_SEARCH = 40;

// The iterative scan (pgvector ≥ 0.8) keeps walking the graph until k rows pass the filters.
export const KNN_SESSION_SETUP = `SELECT set_config('hnsw.iterative_scan', 'relaxed_order', false), set_config('hnsw.ef_search', '${KNN_SESSION_EF_SEARCH}', false)`;
