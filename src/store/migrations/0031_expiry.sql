-- Expiry (docs/expiry.md): a cell or a source may carry the instant it is forgotten. Every read
-- states `expires_at IS NULL OR expires_at > now()` (store/cell-conditions.ts), so an expired item
-- is gone from reads at that instant; maintenance deletes it later through the erasure path.
-- NULL = kept. A chunk carries its source's expiry; a diff carries its cell's, so an inbox read
-- shows no preview of an expired cell and a live push drops it without reading cells.
ALTER TABLE cells ADD COLUMN expires_at timestamptz;
ALTER TABLE sources ADD COLUMN expires_at timestamptz;
ALTER TABLE source_ingestions ADD COLUMN expires_at timestamptz;
ALTER TABLE diffs ADD COLUMN expires_at timestamptz;
-- The sweep reads expired rows oldest first; only expiring rows are indexed.
CREATE INDEX cells_expiry ON cells (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX sources_expiry ON sources (expires_at) WHERE expires_at IS NOT NULL;
