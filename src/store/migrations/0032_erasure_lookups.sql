-- Erasure (docs/forgetting.md) finds the diffs about a set of cells and the copies made from them
-- by index: without these each batch of an erasure (and each cell delete, each expiry sweep)
-- scanned every diff and every cell of the database.
CREATE INDEX diffs_node ON diffs (tenant_id, node_id);
CREATE INDEX cells_origin ON cells (tenant_id, origin_node_id) WHERE origin_node_id IS NOT NULL;
