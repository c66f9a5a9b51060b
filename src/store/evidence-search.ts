/**
 * What recall adds from learnt evidence (migration 0021, docs/feedback-learning.md): each candidate
 * the search already has — a cell that passed every filter — gains weight × (the evidence's
 * similarity − the cell's own), the most over its evidence near enough the query, never less than
 * nothing. Evidence adds no candidate, so it can only reorder the cells a search finds by their own
 * vectors (and words); it counts only in its cell's tenant and, under min_trust, only when its
 * sender's trust meets it.
 */
import type { CellConditions } from './cell-conditions.js';
import type { CellStatistics } from './cell-statistics.js';

/** Learning's part of a search: on, or off (the search reads no evidence at all). */
export interface LearntEvidence {
  /** The cosine similarity to the query below which evidence gains nothing: a question resembles other questions more than their answers. */
  readonly minSimilarity: number;
  /** The search's min_trust: evidence from a sender below it counts for nothing. */
  readonly minTrust?: number;
  /** How the cells are shared among tenants, layers and projects, when read: a search covering most of them has its vector recall planned once (learnt-nearest.ts). */
  readonly statistics?: CellStatistics;
  /** A search of the caller's current project: that project as the facade resolved it (the statement resolves it again), whose share of the cells the choice of plan weighs. */
  readonly currentProject?: string;
}

/** The evidence condition on `e` beyond the tenant ($2): the sender's trust meets min_trust. */
function trusted(where: CellConditions, learnt: LearntEvidence): string {
  return learnt.minTrust === undefined ? '' : ` AND e.trust >= $${where.bind(learnt.minTrust)}::real`;
}

/**
 * A LEFT JOIN LATERAL giving `learnt.gain` for the candidate whose node id and cosine distance are
 * the SQL expressions given: the most any of its evidence at least minSimilarity from the query lifts it, 0 when none does.
 * Each piece of evidence is compared with the query once (the inner subquery, kept apart by OFFSET 0).
 */
export function learntGain(where: CellConditions, learnt: LearntEvidence, nodeId: string, distance: string): string {
  const floor = where.bind(1 - learnt.minSimilarity);
  return `LEFT JOIN LATERAL (SELECT GREATEST(0, COALESCE(max(near.weight * ((${distance}) - near.distance)), 0))::float8 AS gain
      FROM (SELECT e.weight, (e.embedding <=> $1::vector) AS distance FROM cell_evidence AS e
             WHERE e.node_id = ${nodeId} AND e.tenant_id = $2${trusted(where, learnt)} OFFSET 0) AS near
     WHERE near.distance <= $${floor}::float8) AS learnt ON true`;
}
