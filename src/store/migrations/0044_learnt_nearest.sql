-- Vector recall with learning on, planned once per session (src/store/learnt-nearest.ts,
-- docs/feedback-learning.md "What it costs"): the same statement cell-search.ts builds for it with
-- the default filters — the tenant, the layer, live and current cells, the caller's project (its
-- open session's, else p_project) — the nearest p_pool cells on the HNSW index, each lifted by its
-- evidence as evidence-search.ts lifts it, the best p_k ranked by score, distance, then id as text.
-- Planning that statement took more than the evidence added to executing it; here it is planned
-- once (a generic plan) and its shape is fixed by the settings below, not by statistics: the
-- nearest cells come from the HNSW index (no sort may replace it, whatever LIMIT p_pool is guessed
-- to be) and each candidate's evidence from an index. That is the plan the custom planner takes
-- for a tenant holding most of the cells, and recall calls this function only for such a tenant.
CREATE FUNCTION hyphae_learnt_nearest(p_query vector, p_tenant text, p_layer text, p_agent text, p_session_projects text[], p_project text,
                                      p_pool integer, p_k integer, p_floor float8)
RETURNS TABLE (node_id text, distance float8, score float8)
LANGUAGE plpgsql
STABLE
SET plan_cache_mode = 'force_generic_plan'
SET enable_seqscan = 'off'
SET enable_sort = 'off'
AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  SELECT nearest.node_id, nearest.distance, (1 - nearest.distance + learnt.gain)::float8 AS score
  FROM (SELECT c.node_id::text AS node_id, (c.embedding <=> p_query)::float8 AS distance FROM cells AS c
        WHERE c.tenant_id = p_tenant AND c.layer = p_layer AND (c.expires_at IS NULL OR c.expires_at > now())
          AND c.project = COALESCE((SELECT s.project FROM sessions AS s WHERE s.tenant_id = p_tenant AND s.agent = p_agent AND s.closed_at IS NULL
                AND (p_session_projects IS NULL OR s.project = ANY(p_session_projects)) ORDER BY s.opened_at DESC, s.session_id DESC LIMIT 1), p_project)
          AND c.valid_until IS NULL
        ORDER BY c.embedding <=> p_query LIMIT p_pool) AS nearest
  LEFT JOIN LATERAL (SELECT GREATEST(0, COALESCE(max(near.weight * (nearest.distance - near.distance)), 0))::float8 AS gain
      FROM (SELECT e.weight, (e.embedding <=> p_query) AS distance FROM cell_evidence AS e
            WHERE e.node_id = nearest.node_id::uuid AND e.tenant_id = p_tenant OFFSET 0) AS near
      WHERE near.distance <= p_floor) AS learnt ON true
  ORDER BY 3 DESC, 2, 1 LIMIT p_k;
END
$$;
