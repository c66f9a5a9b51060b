-- Core schema: tenants, API keys, scenes, sessions and cells.
-- {{EMBEDDING_DIMENSION}} is substituted by the migrator with the deployment's embedder dimension,
-- which is then recorded in hyphae_meta and checked on every start.
CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE hyphae_meta (
  key   text PRIMARY KEY,
  value text NOT NULL
);

CREATE TABLE tenants (
  tenant_id  text PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  key_id          uuid PRIMARY KEY,
  tenant_id       text NOT NULL REFERENCES tenants (tenant_id),
  agent           text NOT NULL,
  roles           text[] NOT NULL,
  projects        text[] NOT NULL,
  default_project text NOT NULL,
  trust           real NOT NULL DEFAULT 0.5 CHECK (trust >= 0 AND trust <= 1),
  key_hash        bytea NOT NULL UNIQUE,
  key_prefix      text NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  revoked_at      timestamptz
);
CREATE INDEX api_keys_tenant ON api_keys (tenant_id, created_at);

CREATE TABLE scenes (
  tenant_id            text NOT NULL,
  scene_id             uuid NOT NULL,
  project              text NOT NULL,
  title                text,
  created_by           text NOT NULL,
  created_at           timestamptz NOT NULL DEFAULT now(),
  consolidated_at      timestamptz,
  consolidated_node_id uuid,
  PRIMARY KEY (tenant_id, scene_id)
);
CREATE INDEX scenes_project ON scenes (tenant_id, project, created_at DESC, scene_id);

CREATE TABLE sessions (
  tenant_id  text NOT NULL,
  session_id uuid NOT NULL,
  agent      text NOT NULL,
  project    text NOT NULL,
  scene_id   uuid NOT NULL,
  opened_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  closed_at  timestamptz,
  PRIMARY KEY (tenant_id, session_id)
);
CREATE INDEX sessions_open ON sessions (tenant_id, agent, opened_at DESC) WHERE closed_at IS NULL;

CREATE TABLE cells (
  node_id          uuid PRIMARY KEY,
  tenant_id        text NOT NULL,
  project          text NOT NULL,
  content          text NOT NULL,
  cell_type        text NOT NULL CHECK (cell_type IN ('Decision','Constraint','Risk','Pattern','Lesson','Fact','Preference','Context','Task')),
  salience         real NOT NULL CHECK (salience >= 0 AND salience <= 1),
  scene_id         uuid,
  session_id       uuid,
  source_agent     text NOT NULL,
  source_ref       jsonb,
  metadata         jsonb NOT NULL DEFAULT '{}'::jsonb,
  idempotency_key  text,
  layer            text NOT NULL DEFAULT 'L0' CHECK (layer IN ('L0','L1','L2')),
  origin_node_id   uuid,
  embedding        vector({{EMBEDDING_DIMENSION}}) NOT NULL,
  hits             integer NOT NULL DEFAULT 0,
  reinforced_at    timestamptz NOT NULL DEFAULT now(),
  promoted_node_id uuid,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX cells_idempotency ON cells (tenant_id, source_agent, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX cells_listing ON cells (tenant_id, project, layer, created_at DESC, node_id);
CREATE INDEX cells_scene ON cells (tenant_id, scene_id) WHERE scene_id IS NOT NULL;
CREATE INDEX cells_embedding ON cells USING hnsw (embedding vector_cosine_ops);
