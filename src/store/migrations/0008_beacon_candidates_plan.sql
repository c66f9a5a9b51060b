-- hyphae_beacon_candidates (0007) opens its scan as a cursor, which the planner plans for
-- cursor_tuple_fraction (0.1) of the LIMIT: 410 of 4,096 rows. For that a sequential scan and a
-- sort of every beacon looks cheaper than the HNSW index at 10k beacons, and a match on PGlite took
-- 418 ms where the index scan takes 29 ms (same run). The first chunk is 16 rows of the 4,096: the
-- function is planned for that fraction, so the index wins wherever it did for a 16-row LIMIT.
ALTER FUNCTION hyphae_beacon_candidates(text, vector, timestamptz, float8, integer, integer) SET cursor_tuple_fraction = 0.004;
