-- Rebuilds the cells HNSW index with the build parameters of src/store/vector-indexes.ts
-- (CELLS_HNSW_BUILD, substituted below): `m` is what each store's graph insert pays for, and the
-- measured recall held (docs/storage.md, "HNSW build parameters"). The new index is built beside
-- the old one and swapped in at the end, so recalls keep their index while it builds; stores wait
-- for it (CREATE INDEX holds a SHARE lock on cells). Its cost grows with the cells stored
-- (docs/storage.md gives the time per million); an index that already has these parameters, built
-- ahead with CREATE INDEX CONCURRENTLY as docs/storage.md describes, is kept as it is.
DO $$
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM pg_class
     WHERE oid = to_regclass('cells_embedding')
       AND reloptions @> ARRAY['m={{CELLS_HNSW_M}}', 'ef_construction={{CELLS_HNSW_EF_CONSTRUCTION}}']
  ) THEN
    CREATE INDEX cells_embedding_rebuilt ON cells USING hnsw (embedding vector_cosine_ops)
      WITH (m = {{CELLS_HNSW_M}}, ef_construction = {{CELLS_HNSW_EF_CONSTRUCTION}});
    DROP INDEX IF EXISTS cells_embedding;
    ALTER INDEX cells_embedding_rebuilt RENAME TO cells_embedding;
  END IF;
END
$$;
