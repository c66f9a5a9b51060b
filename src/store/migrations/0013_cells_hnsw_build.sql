-- Rebuilds the cells HNSW index with the build parameters measured for the database's embedding
-- model (src/store/vector-indexes.ts, substituted below; docs/storage.md, "HNSW build
-- parameters"): `m` is what each store's graph insert pays for. Only while the database is small
-- (a new one has no cells): a build costs minutes per million cells with stores waiting, so a
-- larger database keeps the index it has until its operator rebuilds it (docs/storage.md,
-- "Migrations"). The new index is built beside the old one and swapped in; an index that already
-- has the parameters is kept.
DO $$
BEGIN
  IF NOT (COALESCE((SELECT reloptions FROM pg_class WHERE oid = to_regclass('cells_embedding')), '{}') @> {{CELLS_HNSW_RELOPTIONS}}
      AND {{CELLS_HNSW_RELOPTIONS}} @> COALESCE((SELECT reloptions FROM pg_class WHERE oid = to_regclass('cells_embedding')), '{}'))
    AND (SELECT count(*) FROM (SELECT 1 FROM cells LIMIT {{CELLS_HNSW_REBUILD_LIMIT}} + 1) AS held) <= {{CELLS_HNSW_REBUILD_LIMIT}}
  THEN
    CREATE INDEX cells_embedding_rebuilt ON cells USING hnsw (embedding vector_cosine_ops){{CELLS_HNSW_WITH}};
    DROP INDEX IF EXISTS cells_embedding;
    ALTER INDEX cells_embedding_rebuilt RENAME TO cells_embedding;
  END IF;
END
$$;
