-- Near-duplicate reinforcement (docs/memory-model.md): a store that restates a current cell of the
-- same project and type reinforces that cell instead of writing a new one. The cell counts the
-- restatements (corroborations), the other agents who stated it (corroborators; with the author
-- they are the wire's stated_by) and a trust that each further agent's corroboration raises
-- (1 − Π(1 − trust of each agent)).
ALTER TABLE cells ADD COLUMN corroborations integer NOT NULL DEFAULT 0 CHECK (corroborations >= 0);
ALTER TABLE cells ADD COLUMN corroborators text[] NOT NULL DEFAULT '{}';
-- An existing cell starts from the highest trust among its author's keys (keys default to 0.5).
ALTER TABLE cells ADD COLUMN trust real;
UPDATE cells SET trust = COALESCE(
  (SELECT max(k.trust) FROM api_keys k WHERE k.tenant_id = cells.tenant_id AND k.agent = cells.source_agent), 0.5);
ALTER TABLE cells ALTER COLUMN trust SET NOT NULL;
ALTER TABLE cells ALTER COLUMN trust SET DEFAULT 0.5;
ALTER TABLE cells ADD CONSTRAINT cells_trust_range CHECK (trust >= 0 AND trust <= 1);

-- The idempotency key of a store that reinforced a cell instead of writing one: its replay
-- returns that cell and reinforces nothing. It goes with the cell.
CREATE TABLE reinforcement_keys (
  tenant_id       text NOT NULL,
  agent           text NOT NULL,
  idempotency_key text NOT NULL,
  node_id         uuid NOT NULL REFERENCES cells (node_id) ON DELETE CASCADE,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, agent, idempotency_key)
);
CREATE INDEX reinforcement_keys_node ON reinforcement_keys (node_id);
