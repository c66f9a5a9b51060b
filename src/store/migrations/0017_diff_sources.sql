-- A diff about a source's chunk names the source (docs/sources.md, "Gossip: one diff per source"):
-- channel events and digests then say "document" with its title. Null for a diff about any other cell.
ALTER TABLE diffs ADD COLUMN source_id text;
