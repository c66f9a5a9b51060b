-- Lexical terms keyed by tenant (docs/storage.md "Lexical recall", docs/security.md "Known limits of
-- these defences").
--
-- cell_terms held bare terms, so the GIN index and the planner's statistics counted every tenant's
-- cells together: the lookup bound, the count of a term the statistics miss, and a term's weight
-- all depended on other tenants' cells, and a tenant storing as many cells naming an identifier as
-- the bound allows could tell from its own scores whether another tenant's cell named it too.
-- cell_tenant_terms replaces it: each term is stored as its tenant's prefix followed by the term,
-- and each cell also holds the prefix alone, so every count, bound and statistic is the tenant's own
-- (src/store/lexical-terms.ts).

-- A tenant's prefix: the first 11 base64 characters of the sha256 of its id. The store computes it
-- in TypeScript for every cell it writes (tenantTermPrefix, one definition there); this one serves
-- the backfill below and the compatibility view's trigger.
CREATE FUNCTION hyphae_tenant_term_prefix(tenant text) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN left(encode(sha256(convert_to(tenant, 'UTF8')), 'base64'), 11);

-- Servers of the previous version write cell_terms as they store, promote, import and delete cells,
-- and keep doing so during a rolling upgrade. Their writes wait here until this migration commits;
-- then the name is theirs to look up again, and it names the view below. Without the lock, a cell
-- stored between the backfill's snapshot and the DROP would lose its terms with the old table.
LOCK TABLE cell_terms IN EXCLUSIVE MODE;

-- Filled in one pass and indexed after the load: rewriting cell_terms in place would leave every old
-- row dead beside its new one and update the GIN index one entry at a time.
CREATE TABLE cell_tenant_terms (
  node_id uuid NOT NULL,
  terms   text[] NOT NULL
);
INSERT INTO cell_tenant_terms (node_id, terms)
  SELECT t.node_id, ARRAY[p.prefix] || ARRAY(SELECT p.prefix || term FROM unnest(t.terms) AS term)
  FROM cell_terms t
  JOIN cells c ON c.node_id = t.node_id
  CROSS JOIN LATERAL (SELECT hyphae_tenant_term_prefix(c.tenant_id) AS prefix) AS p;
DROP TABLE cell_terms;
ALTER TABLE cell_tenant_terms ADD CONSTRAINT cell_tenant_terms_pkey PRIMARY KEY (node_id);
-- Without the pending list, as before (0011).
CREATE INDEX cell_tenant_terms_terms ON cell_tenant_terms USING gin (terms) WITH (fastupdate = off);

-- A statement that deletes cells deletes their terms (0012), now from the new table.
CREATE OR REPLACE FUNCTION hyphae_delete_cell_terms() RETURNS trigger
  LANGUAGE plpgsql
AS $$
BEGIN
  DELETE FROM cell_tenant_terms t USING deleted_cells d WHERE t.node_id = d.node_id;
  RETURN NULL;
END
$$;

-- The statistics recall weighs terms by, now of the new table. Analysed, they may list no term at
-- all: with terms keyed by tenant, a table of many small tenants has no key common enough to be
-- listed. That reads as an empty list, every term then counted on the index, and not as a table
-- never analysed (null), on which every term weighs the same.
CREATE OR REPLACE FUNCTION hyphae_term_statistics(OUT cells float8, OUT terms text[], OUT frequencies real[])
  LANGUAGE plpgsql STABLE
AS $$
BEGIN
  SELECT greatest(c.reltuples, 0)::float8,
         CASE WHEN s.attname IS NULL THEN NULL ELSE COALESCE(s.most_common_elems::text::text[], '{}') END,
         s.most_common_elem_freqs
    INTO cells, terms, frequencies
    FROM pg_class c LEFT JOIN pg_stats s ON s.schemaname = c.relnamespace::regnamespace::name AND s.tablename = 'cell_tenant_terms' AND s.attname = 'terms'
    WHERE c.oid = 'cell_tenant_terms'::regclass;
END
$$;

-- During a rolling upgrade the servers of the previous version still write cell_terms as they store
-- cells, promote them and import them. This view takes those writes: its trigger keys bare terms by
-- the cell's tenant (terms already keyed, as a promotion copies them, are kept), so no cell stored in
-- that window is missing from lexical recall. The previous version's reads through it find no bare
-- term, so its lexical recall finds nothing until it is replaced. A later migration drops the view.
CREATE VIEW cell_terms AS SELECT node_id, terms FROM cell_tenant_terms;

CREATE FUNCTION hyphae_key_cell_terms() RETURNS trigger
  LANGUAGE plpgsql
AS $$
DECLARE
  prefix text;
BEGIN
  SELECT hyphae_tenant_term_prefix(c.tenant_id) INTO prefix FROM cells c WHERE c.node_id = NEW.node_id;
  IF prefix IS NULL THEN
    RETURN NULL;
  END IF;
  INSERT INTO cell_tenant_terms (node_id, terms) VALUES (NEW.node_id, CASE
    WHEN NEW.terms[1] = prefix THEN NEW.terms
    ELSE ARRAY[prefix] || ARRAY(SELECT prefix || term FROM unnest(NEW.terms) AS term) END);
  RETURN NEW;
END
$$;

CREATE TRIGGER cell_terms_keyed INSTEAD OF INSERT ON cell_terms
  FOR EACH ROW EXECUTE FUNCTION hyphae_key_cell_terms();

-- The new table has no statistics until analysed, and recall would weigh every term the same. An
-- empty one (a new database) stays unanalysed: analysed empty, the planner would take it for empty
-- until the next analysis, however many cells were stored since.
DO $$
BEGIN
  IF EXISTS (SELECT FROM cell_tenant_terms) THEN
    ANALYZE cell_tenant_terms;
  END IF;
END
$$;
