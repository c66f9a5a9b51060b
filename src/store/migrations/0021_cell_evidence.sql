-- What recall learnt from ground truth (docs/feedback-learning.md): a judged query's embedding kept
-- as evidence for each cell the judgement named true, searched with the cells so a later paraphrase
-- of the same need finds the cell. It goes with its cell (the foreign key deletes it in the
-- statement that deletes, forgets or purges the cell), belongs to the cell's tenant, and weighs what
-- its sender's trust weighed when it was sent; query_text is null when the request log kept only a hash.
CREATE TABLE cell_evidence (
  evidence_id  uuid PRIMARY KEY,
  tenant_id    text NOT NULL,
  node_id      uuid NOT NULL REFERENCES cells (node_id) ON DELETE CASCADE,
  embedding    vector({{EMBEDDING_DIMENSION}}) NOT NULL,
  weight       real NOT NULL CHECK (weight >= 0 AND weight <= 1),
  trust        real NOT NULL CHECK (trust >= 0 AND trust <= 1),
  agent        text NOT NULL,
  label        text NOT NULL CHECK (label IN ('agent', 'human')),
  request_id   text NOT NULL,
  query_text   text,
  created_at   timestamptz NOT NULL,
  UNIQUE (node_id, request_id, agent)
);
-- A hit's learnt lift reads its cell's evidence; the tenant's nearest evidence comes from the HNSW index.
CREATE INDEX cell_evidence_node ON cell_evidence (node_id);
CREATE INDEX cell_evidence_embedding ON cell_evidence USING hnsw (embedding vector_cosine_ops);
