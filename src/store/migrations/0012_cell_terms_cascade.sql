-- A cell's terms are written by the statement that writes the cell (src/store/cell-repository.ts,
-- import-repository.ts), from the row it has just inserted, so the foreign key's check on that
-- insert can never fail — and it cost every store a row lock on its new cell, written to the WAL
-- (about 0.35 ms of a store's ~6 ms on PGlite: docs/storage.md, the store path). What the key did
-- on delete stays: a statement that deletes cells deletes their terms, in the same transaction.
ALTER TABLE cell_terms DROP CONSTRAINT cell_terms_node_id_fkey;

CREATE FUNCTION hyphae_delete_cell_terms() RETURNS trigger
  LANGUAGE plpgsql
AS $$
BEGIN
  DELETE FROM cell_terms t USING deleted_cells d WHERE t.node_id = d.node_id;
  RETURN NULL;
END
$$;

CREATE TRIGGER cells_delete_terms AFTER DELETE ON cells
  REFERENCING OLD TABLE AS deleted_cells
  FOR EACH STATEMENT EXECUTE FUNCTION hyphae_delete_cell_terms();
