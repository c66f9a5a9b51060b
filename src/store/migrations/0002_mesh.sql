-- Gossip mesh: beacons (standing interests), per-agent inboxes and the diffs they hold.
-- Diffs are written in the same transaction as the cell change (transactional outbox);
-- published_at marks what the outbox relay has put on the bus.
CREATE TABLE beacons (
  beacon_id      uuid PRIMARY KEY,
  tenant_id      text NOT NULL,
  owner_agent    text NOT NULL,
  owner_projects text[] NOT NULL,
  project        text,
  text           text NOT NULL,
  embedding      vector({{EMBEDDING_DIMENSION}}) NOT NULL,
  threshold      real NOT NULL CHECK (threshold >= 0 AND threshold <= 1),
  cell_types     text[],
  scene_id       uuid,
  include_own    boolean NOT NULL DEFAULT false,
  expires_at     timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX beacons_owner ON beacons (tenant_id, owner_agent, created_at, beacon_id);
CREATE INDEX beacons_expiry ON beacons (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX beacons_embedding ON beacons USING hnsw (embedding vector_cosine_ops);

CREATE TABLE inboxes (
  tenant_id  text NOT NULL,
  agent      text NOT NULL,
  last_seq   bigint NOT NULL DEFAULT 0,
  cursor_seq bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant_id, agent)
);

CREATE TABLE diffs (
  diff_id         uuid PRIMARY KEY,
  tenant_id       text NOT NULL,
  recipient_agent text NOT NULL,
  seq             bigint NOT NULL,
  op              text NOT NULL CHECK (op IN ('created','updated','deleted','promoted')),
  node_id         uuid NOT NULL,
  beacon_id       uuid NOT NULL,
  similarity      real NOT NULL,
  cell_type       text NOT NULL,
  salience        real NOT NULL,
  source_agent    text NOT NULL,
  project         text NOT NULL,
  scene_id        uuid,
  preview         text NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  published_at    timestamptz,
  UNIQUE (tenant_id, recipient_agent, seq)
);
CREATE INDEX diffs_since ON diffs (tenant_id, recipient_agent, created_at, seq);
CREATE INDEX diffs_unpublished ON diffs (created_at) WHERE published_at IS NULL;
CREATE INDEX diffs_retention ON diffs (created_at);
