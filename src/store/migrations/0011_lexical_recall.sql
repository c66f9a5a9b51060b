-- Lexical recall and corroboration records (docs/storage.md "Lexical recall", docs/memory-model.md).
--
-- cell_terms: what lexical recall matches in a cell — the English stems of its text (to_tsvector)
-- and its identifier tokens (error codes, ticket ids, paths, versions, CamelCase and snake_case
-- names: src/core/identifier-tokens.ts, written by the store with each cell), as one array under a
-- GIN index. A table of its own: adding columns to cells would rewrite it, and a rewrite rebuilds
-- the HNSW index (minutes per 100k cells).
CREATE TABLE cell_terms (
  node_id uuid PRIMARY KEY REFERENCES cells (node_id) ON DELETE CASCADE,
  terms   text[] NOT NULL
);

-- The terms of the cells stored before this migration. The identifier rules are those of
-- src/core/identifier-tokens.ts, written once more in SQL for this backfill only (a session-local
-- function): the store computes them in TypeScript for every new cell.
CREATE FUNCTION pg_temp.identifier_tokens(content text) RETURNS text[]
  LANGUAGE sql IMMUTABLE STRICT
  RETURN ARRAY(
    SELECT DISTINCT lower(token) FROM (
      SELECT regexp_replace(word, '^[.:]+|[.:]+$', '', 'g') AS token
      FROM regexp_split_to_table(content, '[\s,;!?()<>{}"''`|=*%\[\]]+') AS word
      UNION ALL
      SELECT substring(word FROM '/([^/]+\.[A-Za-z0-9]+)[.:]*$')
      FROM regexp_split_to_table(content, '[\s,;!?()<>{}"''`|=*%\[\]]+') AS word
    ) AS words
    WHERE token IS NOT NULL AND length(token) BETWEEN 2 AND 128 AND token ~ '^[!-~]+$' AND (
         token ~ '^[A-Za-z0-9]+(_[A-Za-z0-9]+)+$'
      OR (token ~ '^[A-Za-z0-9#][A-Za-z0-9._:/#-]*$' AND token ~ '[A-Za-z]' AND token ~ '[0-9]')
      OR (token ~ '/' AND token ~ '[A-Za-z]')
      OR (token ~ '^[A-Za-z0-9_-]{2,}(\.[A-Za-z0-9_-]+)+$' AND token ~ '[A-Za-z]')
      OR token ~ '^v?[0-9]+(\.[0-9]+)+$'
      OR token ~ '[a-z][A-Z]'
      OR token ~ '^#[A-Za-z0-9][A-Za-z0-9_-]*$'
      OR (token ~ '^[A-Za-z0-9]+(-[A-Za-z0-9]+)+$' AND token ~ '-[A-Za-z0-9]*[A-Z]')
    )
  );
INSERT INTO cell_terms (node_id, terms)
  SELECT node_id, tsvector_to_array(to_tsvector('english', content) || array_to_tsvector(pg_temp.identifier_tokens(content))) FROM cells;
DROP FUNCTION pg_temp.identifier_tokens(text);
-- Without the pending list (fastupdate): a lookup never scans megabytes of entries not yet merged
-- into the index, whatever the last vacuum; a store pays for its own entries instead.
CREATE INDEX cell_terms_terms ON cell_terms USING gin (terms) WITH (fastupdate = off);

-- How rare each term is, for weighting a query's terms (src/store/lexical-terms.ts): the planner's
-- statistics of cell_terms — its row estimate, its most common terms and their frequencies (the
-- list ends with the lowest and highest frequency and that of nulls). A function, so the pg_stats
-- view is planned once per session (a statement without parameters keeps its plan) instead of with
-- every recall.
CREATE FUNCTION hyphae_term_statistics(OUT cells float8, OUT terms text[], OUT frequencies real[])
  LANGUAGE plpgsql STABLE
AS $$
BEGIN
  SELECT greatest(c.reltuples, 0)::float8, s.most_common_elems::text::text[], s.most_common_elem_freqs
    INTO cells, terms, frequencies
    FROM pg_class c LEFT JOIN pg_stats s ON s.schemaname = c.relnamespace::regnamespace::name AND s.tablename = 'cell_terms' AND s.attname = 'terms'
    WHERE c.oid = 'cell_terms'::regclass;
END
$$;

-- An identical restatement (the same text once case, runs of whitespace and closing punctuation
-- are set aside, in the same project and type) reinforces its cell with every embedder: the store
-- finds it on this key before any similarity is computed.
CREATE FUNCTION hyphae_statement_key(content text) RETURNS bytea
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN sha256(convert_to(lower(regexp_replace(btrim(regexp_replace(content, '\s+', ' ', 'g')), '[\s.!;:,]+$', '')), 'UTF8'));
CREATE INDEX cells_statement_key ON cells (tenant_id, project, cell_type, hyphae_statement_key(content))
  WHERE layer = 'L0' AND valid_until IS NULL;

-- What a reinforcing store said, kept beside the cell it reinforced (readable in the cell's
-- history): its text, the agent, and what the store carried, so no statement a client sent is lost.
CREATE TABLE corroborations (
  corroboration_id uuid PRIMARY KEY,
  tenant_id        text NOT NULL,
  node_id          uuid NOT NULL REFERENCES cells (node_id) ON DELETE CASCADE,
  agent            text NOT NULL,
  content          text NOT NULL,
  salience         real NOT NULL,
  scene_id         uuid,
  session_id       uuid,
  source_ref       jsonb,
  metadata         jsonb NOT NULL DEFAULT '{}'::jsonb,
  similarity       real NOT NULL,
  created_at       timestamptz NOT NULL
);
CREATE INDEX corroborations_node ON corroborations (tenant_id, node_id, created_at);
