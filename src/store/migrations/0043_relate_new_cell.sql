-- A new cell's declared relations, written by its own insert statement (src/store/relation-repository.ts,
-- docs/relations.md "What a subgraph costs"): the targets the caller may read — cells of the tenant,
-- in p_projects (NULL: every project), live as liveRow (src/store/cell-conditions.ts) reads it — are
-- locked FOR SHARE in id order, so none is deleted before the store commits, and the new cell is
-- related to each relation's target among them. Answers the readable targets' ids (NULL: none); the
-- caller refuses the store, and rolls it back, when a target is missing from them.
-- In a function, the two statements are parsed once per session, and planned once too (generic
-- plans: each reads cells by primary key whatever the ids), where the same CTEs in the insert's own
-- text were parsed, analysed and planned on every store — most of what a relation added to it.
CREATE FUNCTION hyphae_relate_new_cell(p_tenant text, p_from uuid, p_to uuid[], p_types text[], p_valid_until timestamptz[], p_projects text[],
                                       p_created_by text, p_created_at timestamptz)
RETURNS text[]
LANGUAGE plpgsql
SET plan_cache_mode = 'force_generic_plan'
AS $$
DECLARE
  readable uuid[];
BEGIN
  SELECT array_agg(t.node_id) INTO readable FROM (
    SELECT c.node_id FROM cells c
    WHERE c.tenant_id = p_tenant AND c.node_id = ANY(p_to) AND (p_projects IS NULL OR c.project = ANY(p_projects))
      AND (c.expires_at IS NULL OR c.expires_at > now())
    ORDER BY c.node_id FOR SHARE) t;
  INSERT INTO cell_relations (tenant_id, from_node_id, to_node_id, relation_type, created_by, created_at, valid_until)
  SELECT p_tenant, p_from, w.to_node_id, w.relation_type, p_created_by, p_created_at, w.valid_until
  FROM unnest(p_to, p_types, p_valid_until) AS w(to_node_id, relation_type, valid_until)
  WHERE w.to_node_id = ANY(readable);
  RETURN readable::text[];
END
$$;
