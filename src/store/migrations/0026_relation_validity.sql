-- When a declared relation stops holding (docs/relations.md, "Time validity"): NULL while it holds.
-- A subgraph and graph_context walk the relations that held at their instant (now, or as_of):
-- declared at or before it and not ended by it.
ALTER TABLE cell_relations ADD COLUMN valid_until timestamptz;
ALTER TABLE cell_relations ADD CONSTRAINT cell_relations_valid_until CHECK (valid_until IS NULL OR valid_until > created_at);
