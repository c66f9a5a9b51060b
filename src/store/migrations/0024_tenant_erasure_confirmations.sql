-- Erasing a whole tenant takes two calls (docs/forgetting.md): the first answers a confirmation
-- token, bound to the tenant and to the key that asked and valid a few minutes; the second, with
-- that token, erases. Only the token's sha256 is kept; using it deletes it.
CREATE TABLE tenant_erasure_confirmations (
  token_hash bytea PRIMARY KEY,
  tenant_id  text NOT NULL,
  key_id     text NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX tenant_erasure_confirmations_expiry ON tenant_erasure_confirmations (expires_at);
