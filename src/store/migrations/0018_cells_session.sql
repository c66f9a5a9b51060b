-- The cells of a session, for the subgraph's in_session edge walked from a session to its cells
-- (docs/relations.md); without it that step reads every cell of the table.
CREATE INDEX cells_session ON cells (tenant_id, session_id) WHERE session_id IS NOT NULL;
