-- Erasure (docs/forgetting.md): every erasure leaves a receipt — who erased, by which selector,
-- when, and how many copies of each kind went — never the erased text. The table is append-only:
-- a trigger refuses every UPDATE, TRUNCATE and DELETE, except the DELETE of a tenant's older
-- receipts by that tenant's own erasure, which sets hyphae.erasing_tenant for its transaction and
-- then writes its own receipt, so the last word about a tenant that was erased is that it was.
-- The guard stops the application and a mistaken statement; a database superuser can still drop it.
CREATE TABLE erasure_receipts (
  receipt_id  uuid PRIMARY KEY,
  tenant_id   text NOT NULL,
  -- Who: the agent and key (null for the server's own expiry) that asked.
  actor_agent text NOT NULL,
  actor_key   text,
  -- What: the selector's kind and its identifiers (node id, source id, project, agent), no text.
  selector    jsonb NOT NULL,
  counts      jsonb NOT NULL,
  started_at  timestamptz NOT NULL,
  erased_at   timestamptz NOT NULL
);
CREATE INDEX erasure_receipts_listing ON erasure_receipts (tenant_id, erased_at DESC, receipt_id);

CREATE FUNCTION hyphae_erasure_receipts_append_only() RETURNS trigger
  LANGUAGE plpgsql
AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    IF OLD.tenant_id = current_setting('hyphae.erasing_tenant', true) THEN
      RETURN OLD;
    END IF;
  END IF;
  RAISE EXCEPTION 'erasure receipts are append-only' USING ERRCODE = 'insufficient_privilege';
END
$$;

CREATE TRIGGER erasure_receipts_append_only BEFORE UPDATE OR DELETE ON erasure_receipts
  FOR EACH ROW EXECUTE FUNCTION hyphae_erasure_receipts_append_only();
CREATE TRIGGER erasure_receipts_no_truncate BEFORE TRUNCATE ON erasure_receipts
  FOR EACH STATEMENT EXECUTE FUNCTION hyphae_erasure_receipts_append_only();

-- A diff about an erased cell stays in its inbox as a tombstone: its preview emptied, erased_at set,
-- so a pending channel event or digest never quotes, nor counts, what was erased.
ALTER TABLE diffs ADD COLUMN erased_at timestamptz;
