-- How far an agent's Claude Code channel sessions have dealt with its inbox: every diff at or below
-- settled_seq was announced (alone or in a digest) or withheld by the trust gate. A new session
-- (a new stdio process, a bridge or HTTP stream reconnecting, on any replica) announces only what
-- lies above it and above the drain cursor, once, as one digest. Its own table, so raising it never
-- waits on the inbox row that every store to this agent locks.
CREATE TABLE channel_marks (
  tenant_id   text NOT NULL,
  agent       text NOT NULL,
  settled_seq bigint NOT NULL,
  PRIMARY KEY (tenant_id, agent)
);
