-- Sources: documents and conversations ingested whole, read back in slices, and recalled through
-- their chunks (docs/sources.md). A source is keyed by its tenant, its project and a source_id the
-- client chose (or the server generated): another tenant's id is a different source.
--
-- `sources` holds what is served: the text and fields of the last ingestion that finished, whose
-- chunks are the cells that name it. An ingestion embedded in the background waits in
-- `source_ingestions` (its text, its state, the lease of the process doing it) with its chunks in
-- `source_chunk_drafts` until one transaction swaps them in: a reader sees the old chunks or the
-- new ones, never both.
CREATE TABLE sources (
  tenant_id        text NOT NULL,
  project          text NOT NULL,
  source_id        text NOT NULL,
  kind             text NOT NULL CHECK (kind IN ('knowledge','memory')),
  format           text NOT NULL CHECK (format IN ('text','markdown','conversation')),
  title            text,
  metadata         jsonb NOT NULL DEFAULT '{}'::jsonb,
  observation_date date,
  body             text NOT NULL,
  -- Length of body in UTF-16 code units (the unit of offsets and slices), and in UTF-8 bytes.
  total_chars      integer NOT NULL,
  total_bytes      integer NOT NULL,
  chunk_count      integer NOT NULL,
  created_by       text NOT NULL,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, project, source_id)
);
CREATE INDEX sources_listing ON sources (tenant_id, project, kind, created_at DESC, source_id);

CREATE TABLE source_ingestions (
  ingestion_id     uuid NOT NULL UNIQUE,
  tenant_id        text NOT NULL,
  project          text NOT NULL,
  source_id        text NOT NULL,
  kind             text NOT NULL CHECK (kind IN ('knowledge','memory')),
  format           text NOT NULL CHECK (format IN ('text','markdown','conversation')),
  title            text,
  metadata         jsonb NOT NULL DEFAULT '{}'::jsonb,
  observation_date date,
  body             text NOT NULL,
  total_chars      integer NOT NULL,
  total_bytes      integer NOT NULL,
  created_by       text NOT NULL,
  -- The author's trust when it ingested (its key's), given to every chunk cell.
  trust            real NOT NULL,
  state            text NOT NULL CHECK (state IN ('queued','indexing','failed')),
  chunks_total     integer NOT NULL,
  chunks_done      integer NOT NULL DEFAULT 0,
  failure          text,
  -- The process embedding it, until lease_expires_at; an expired lease is taken over (the work resumes).
  lease_owner      text,
  lease_expires_at timestamptz,
  attempts         integer NOT NULL DEFAULT 0,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, project, source_id)
);
CREATE INDEX source_ingestions_due ON source_ingestions (lease_expires_at NULLS FIRST) WHERE state <> 'failed';

CREATE TABLE source_chunk_drafts (
  ingestion_id uuid NOT NULL REFERENCES source_ingestions (ingestion_id) ON DELETE CASCADE,
  chunk_index  integer NOT NULL,
  content      text NOT NULL,
  char_start   integer NOT NULL,
  char_end     integer NOT NULL,
  -- The identifier tokens of content (src/core/identifier-tokens.ts), for the chunk cell's lexical terms.
  identifiers  text[] NOT NULL,
  -- Null until embedded; the ingestion is done when none is.
  embedding    vector({{EMBEDDING_DIMENSION}}),
  PRIMARY KEY (ingestion_id, chunk_index)
);

-- A chunk is a cell that names its source and where in the source's text it lies, so every read
-- path of cells (recall, filters, lexical terms, history, export) works on it unchanged.
ALTER TABLE cells
  ADD COLUMN source_id   text,
  ADD COLUMN chunk_index integer,
  ADD COLUMN char_start  integer,
  ADD COLUMN char_end    integer;
CREATE INDEX cells_source_chunks ON cells (tenant_id, project, source_id, chunk_index) WHERE source_id IS NOT NULL;
