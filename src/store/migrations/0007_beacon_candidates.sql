-- The beacon matcher's candidate scan in one statement (issue 12). It reads the tenant's lowest
-- threshold (beacons_tenant_threshold), then walks ONE iterative HNSW scan over the tenant's
-- unexpired beacons, nearest first, in chunks that grow ×4 from p_first rows up to p_cap, and stops
-- at the end of the first chunk that holds a beacon below the lowest threshold minus the cell's
-- reach: no beacon past it can match. The stop is per chunk, never per row: the relaxed-order scan
-- returns rows out of distance order even within its first batch (a 0.61 beacon after a 0.21 one
-- at 100k beacons), so stopping at the first row below the bound drops beacons that match;
-- strict_order drops those rows instead. Each chunk continues the same scan, where the matcher used
-- to run a fresh search with a larger LIMIT per chunk. ef_search 40 and the relaxed iterative scan
-- hold inside the function only (the SET clauses revert on return), whatever the session has;
-- plans are custom per call, as for a plain statement (a small tenant's seq scan, a big one's index).
-- Every row read comes back with its similarity; the caller applies each beacon's own threshold,
-- the cell's reach and the filters.
CREATE FUNCTION hyphae_beacon_candidates(p_tenant text, p_vector vector, p_now timestamptz, p_reach float8, p_first integer, p_cap integer)
RETURNS TABLE (beacon_id text, owner_agent text, owner_projects text[], project text, threshold real, cell_types text[],
               scene_id text, include_own boolean, similarity float8)
LANGUAGE plpgsql STABLE
SET hnsw.iterative_scan = 'relaxed_order'
SET hnsw.ef_search = 40
SET plan_cache_mode = 'force_custom_plan'
AS $$
#variable_conflict use_column
DECLARE
  lowest real;
  bound float8;
  seen integer := 0;
  chunk_end integer := least(p_first, p_cap);
  below boolean := false;
  scan refcursor;
  r record;
BEGIN
  SELECT min(b.threshold) INTO lowest FROM beacons b WHERE b.tenant_id = p_tenant;
  IF lowest IS NULL THEN
    RETURN;
  END IF;
  -- Through text, as the caller reads a real (0.4, not 0.4000000059604645), so both compute the same bound.
  bound := lowest::text::float8 - p_reach;
  -- An explicit cursor read a row at a time: a FOR loop fetches 10 rows, then 50, which pulls the
  -- scan past its first ef_search (40) rows into a second, costly iteration that nothing needed
  -- (2× the cost at 100k beacons).
  OPEN scan NO SCROLL FOR
    SELECT b.beacon_id::text AS id, b.owner_agent AS owner, b.owner_projects AS projects, b.project AS proj, b.threshold AS th,
           b.cell_types AS types, b.scene_id::text AS scene, b.include_own AS own, (1 - (b.embedding <=> p_vector))::float8 AS sim
    FROM beacons b
    WHERE b.tenant_id = p_tenant AND (b.expires_at IS NULL OR b.expires_at > p_now)
    ORDER BY b.embedding <=> p_vector
    LIMIT p_cap;
  LOOP
    FETCH scan INTO r;
    EXIT WHEN NOT FOUND;
    beacon_id := r.id; owner_agent := r.owner; owner_projects := r.projects; project := r.proj; threshold := r.th;
    cell_types := r.types; scene_id := r.scene; include_own := r.own; similarity := r.sim;
    RETURN NEXT;
    seen := seen + 1;
    below := below OR r.sim < bound;
    IF seen >= chunk_end THEN
      EXIT WHEN below;
      chunk_end := least(chunk_end * 4, p_cap);
    END IF;
  END LOOP;
  CLOSE scan;
END
$$;
