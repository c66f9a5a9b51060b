-- Explicit relations between cells (docs/relations.md): a cell declares typed relations to other
-- cells of its tenant ("this answers that"). A relation goes with either of its cells: the
-- foreign keys delete it in the statement that deletes, forgets or purges a cell. The implicit
-- edges (supersession, scenes, sessions, sources, restatements, promotion) are derived from what
-- the other tables record and are never stored here.
CREATE TABLE cell_relations (
  tenant_id     text NOT NULL,
  from_node_id  uuid NOT NULL REFERENCES cells (node_id) ON DELETE CASCADE,
  to_node_id    uuid NOT NULL REFERENCES cells (node_id) ON DELETE CASCADE,
  relation_type text NOT NULL CHECK (relation_type ~ '^[a-z][a-z0-9]*(_[a-z0-9]+)*$' AND length(relation_type) <= 40),
  created_by    text NOT NULL,
  created_at    timestamptz NOT NULL,
  PRIMARY KEY (from_node_id, to_node_id, relation_type)
);
-- The other direction: a subgraph walks relations both ways, and deleting a cell finds the relations to it.
CREATE INDEX cell_relations_to ON cell_relations (to_node_id);
