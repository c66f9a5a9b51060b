-- Supersession (docs/memory-model.md): a cell can be replaced by a newer version. The new cell
-- names the one it replaces (supersedes); the old one gets valid_until and superseded_by, and is
-- kept, so the chain is the cell's history. A cell is current while valid_until IS NULL. A cell
-- has at most one successor (the unique index), so a chain never forks.
ALTER TABLE cells ADD COLUMN valid_from timestamptz;
UPDATE cells SET valid_from = created_at;
ALTER TABLE cells ALTER COLUMN valid_from SET NOT NULL;
ALTER TABLE cells ALTER COLUMN valid_from SET DEFAULT now();
ALTER TABLE cells ADD COLUMN valid_until timestamptz;
ALTER TABLE cells ADD COLUMN supersedes uuid;
ALTER TABLE cells ADD COLUMN superseded_by uuid;
CREATE UNIQUE INDEX cells_successor ON cells (tenant_id, supersedes) WHERE supersedes IS NOT NULL;

-- An `updated` diff names the cell it replaces beside the new one.
ALTER TABLE diffs ADD COLUMN supersedes uuid;
