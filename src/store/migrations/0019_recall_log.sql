-- The recall log (docs/feedback.md): one row per recall or query answered, named by the
-- request_id the answer carries, so feedback can judge it later. It keeps who asked (the agent,
-- and whether a person signed in to the console), the query's embedding and the model that made
-- it, its text (NULL when HYPHAE_RECALL_LOG_TEXT=off; the SHA-256 is always kept), the arguments
-- and the ranked ids in order. Rows older than HYPHAE_RECALL_LOG_RETENTION_DAYS are removed by
-- the retention pass. The embedding column has no dimension so a re-embedded database keeps
-- its old rows (their model id says they no longer compare).
CREATE TABLE recall_requests (
  tenant_id       text NOT NULL,
  request_id      uuid NOT NULL,
  agent           text NOT NULL,
  human           boolean NOT NULL,
  operation       text NOT NULL CHECK (operation IN ('recall', 'query')),
  project         text NOT NULL,
  query_text      text,
  query_sha256    text NOT NULL,
  query_embedding vector NOT NULL,
  embedding_model text NOT NULL,
  arguments       jsonb NOT NULL,
  result_ids      uuid[] NOT NULL,
  created_at      timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, request_id)
);
-- Retention deletes the oldest rows first, across tenants.
CREATE INDEX recall_requests_created ON recall_requests (created_at);
