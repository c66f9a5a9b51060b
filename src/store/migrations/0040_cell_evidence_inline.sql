-- Learnt evidence keeps its vector in its row (docs/feedback-learning.md, "What it costs"): recall
-- reads each candidate's evidence, and a vector moved out of line (pgvector's storage, for a row
-- above the default 2 kB toast target: a 512-dimension vector alone is past it) costs a lookup in
-- the TOAST table each time it is compared with a query. Rows up to a page (vectors of ~1,900
-- dimensions and a short query text) now stay whole; longer query texts still move out of line
-- first. Evidence written before is rewritten so.
ALTER TABLE cell_evidence SET (toast_tuple_target = 8160);
UPDATE cell_evidence SET embedding = embedding::text::vector;
