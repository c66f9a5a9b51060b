-- Feedback on a logged recall or query (docs/feedback.md): a rating, free text, a ground-truth
-- answer and the ground-truth ids as sent, the cells they resolved to, and — when ids were named
-- (judged) — the rank at which the first true item was surfaced (NULL: not surfaced). Labelled
-- agent or human by the credential that sent it. Feedback goes with the request it judges, so the
-- recall log's retention removes both. Nothing here changes the request or any cell.
CREATE TABLE recall_feedback (
  tenant_id           text NOT NULL,
  feedback_id         uuid NOT NULL,
  request_id          uuid NOT NULL,
  agent               text NOT NULL,
  label               text NOT NULL CHECK (label IN ('agent', 'human')),
  sender_trust        real NOT NULL,
  rating              text CHECK (rating IN ('positive', 'negative', 'neutral')),
  feedback            text,
  ground_truth_answer text,
  ground_truth_ids    text[] NOT NULL,
  truth_cell_ids      uuid[] NOT NULL,
  judged              boolean NOT NULL,
  truth_rank          integer CHECK (truth_rank >= 1),
  metadata            jsonb NOT NULL,
  created_at          timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, feedback_id),
  FOREIGN KEY (tenant_id, request_id) REFERENCES recall_requests (tenant_id, request_id) ON DELETE CASCADE
);
CREATE INDEX recall_feedback_request ON recall_feedback (tenant_id, request_id);
-- Quality over a window: the tenant's judged feedback by time.
CREATE INDEX recall_feedback_judged ON recall_feedback (tenant_id, created_at) WHERE judged;

-- A search over several projects at once (the HydraDB toolset's collections) is judged against
-- them all: they are kept here, the first also in project; NULL: project alone.
ALTER TABLE recall_requests ADD COLUMN projects text[];
