/**
 * What recall adds from learnt evidence (migration 0021, docs/feedback-learning.md): the cells whose
 * evidence lies nearest the query join the candidates, and each candidate's score gains
 * weight × (the evidence's similarity − the cell's own), at most, over its evidence, never less than
 * nothing. A candidate still passes every filter of the search; evidence counts only in its cell's
 * tenant and, under min_trust, only when its sender's trust meets it.
 */
import type { CellConditions } from './cell-conditions.js';

/** Learning's part of a search: on, or off (the search reads no evidence at all). */
export interface LearntEvidence {
  /** The search's min_trust: evidence from a sender below it counts for nothing. */
  readonly minTrust?: number;
}

/** The evidence condition on `e` beyond the tenant ($2): the sender's trust meets min_trust. */
function trusted(where: CellConditions, learnt: LearntEvidence): string {
  return learnt.minTrust === undefined ? '' : ` AND e.trust >= $${where.bind(learnt.minTrust)}::real`;
}

/**
 * The node ids (evidence_node) of the cells whose evidence lies nearest the query ($1) on its HNSW index, each
 * cell read on its key and passing the search's conditions, at most `pool` ($n) rows.
 */
export function nearestEvidenceCells(where: CellConditions, learnt: LearntEvidence, pool: number): string {
  return `(SELECT e.node_id AS evidence_node FROM cell_evidence AS e
      CROSS JOIN LATERAL (SELECT 1 FROM (SELECT * FROM cells WHERE cells.node_id = e.node_id OFFSET 0) AS cells WHERE ${where.sql}) AS passing
      WHERE e.tenant_id = $2${trusted(where, learnt)} ORDER BY e.embedding <=> $1::vector LIMIT $${pool})`;
}

/**
 * A LEFT JOIN LATERAL giving `learnt.gain` for the candidate whose node id and cosine distance are
 * the SQL expressions given: the most any of its evidence lifts it, 0 when none does.
 */
export function learntGain(where: CellConditions, learnt: LearntEvidence, nodeId: string, distance: string): string {
  return `LEFT JOIN LATERAL (SELECT GREATEST(0, COALESCE(max(e.weight * ((${distance}) - (e.embedding <=> $1::vector))), 0))::float8 AS gain
      FROM cell_evidence AS e WHERE e.node_id = ${nodeId} AND e.tenant_id = $2${trusted(where, learnt)}) AS learnt ON true`;
}
