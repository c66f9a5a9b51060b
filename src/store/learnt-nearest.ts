/**
 * Vector recall with learning on, planned once per session (migration 0044, docs/feedback-learning.md
 * "What it costs"): when the planner's statistics say the search covers most of the cells — its
 * tenant and layer (and a project it names) hold at least half of them — and it has the default
 * filters alone, recall calls hyphae_learnt_nearest, whose statement is the one cell-search.ts builds
 * for the same search, planned once per session with the plan the custom planner takes for such a
 * search (the HNSW index, an index probe per candidate's evidence). Planned afresh on every call, as
 * the sessions plan every statement, the larger statement cost more than the evidence added to
 * running it. Any other search keeps the statement planned for its values: the HNSW walk is the wrong
 * plan for a search that covers few of the cells, which the walk might not reach before
 * max_scan_tuples ends it.
 */
import type { KnnFilter, KnnHit } from './cell-search.js';
import { cellColumns, type CellRow } from './cell-row.js';
import type { Queryable } from './db.js';
import type { LearntEvidence } from './evidence-search.js';
import { byKey } from './sql/by-key.js';
import { estimatedShare, type CellStatistics, type CellStatisticsColumn } from './cell-statistics.js';
import type { VectorParam } from './vector-param.js';

/** The share of the cells a search covers, at least, for its learnt recall to be planned once. */
export const PLANNED_ONCE_SHARE = 0.5;
/** The cells it covers, at least, for the same: below, a plan made per call costs little, and may read them all exactly. */
export const PLANNED_ONCE_CELLS = 1_000;

/** Whether the statistics say the cells holding all these values are most of the cells, and enough of them (columns taken as independent, as the planner takes them). */
export function coversMostCells(statistics: CellStatistics, values: Partial<Record<CellStatisticsColumn, string>>): boolean {
  const share = estimatedShare(statistics, values);
  return share >= PLANNED_ONCE_SHARE && share * statistics.cells >= PLANNED_ONCE_CELLS;
}

/**
 * Whether a learnt vector search takes the statement planned once: no filter beyond the defaults,
 * and a tenant, layer and project the statistics say hold most of the cells — a named project, or
 * the current one as the facade resolved it (without it, no). A small project of a large tenant is
 * read exactly through cells_listing by the custom plan, and the HNSW walk could miss its cells.
 */
export function plannedOnce(filter: KnnFilter, learnt: LearntEvidence): boolean {
  const { tenantId, project, layer, validity, ...narrowing } = filter;
  const { statistics } = learnt;
  if (statistics === undefined || learnt.minTrust !== undefined || project.kind === 'projects') return false;
  if ((validity !== undefined && validity.kind !== 'current') || Object.values(narrowing).some((value) => value !== undefined)) return false;
  const projectName = project.kind === 'named' ? project.project : learnt.currentProject;
  return projectName !== undefined && coversMostCells(statistics, { tenant_id: tenantId, layer, project: projectName });
}

/** The k best of the pool nearest cells, by cosine lifted by evidence, best first; with withCells, each hit's cell too (read on its key). */
export async function learntNearestPlannedOnce(q: Queryable, vector: VectorParam, filter: KnnFilter, learnt: LearntEvidence, pool: number, k: number, withCells: boolean): Promise<KnnHit[]> {
  const { project } = filter;
  if (project.kind === 'projects') throw new Error('the once-planned learnt statement searches one project');
  // A named project is the current one of no session: the statement's session lookup by a null agent finds none.
  const [agent, sessionProjects, fallback] = project.kind === 'current' ? [project.agent, project.projects, project.defaultProject] : [null, null, project.project];
  const params = [vector, filter.tenantId, filter.layer, agent, sessionProjects, fallback, pool, k, 1 - learnt.minSimilarity];
  const call = 'hyphae_learnt_nearest($1::vector, $2, $3, $4, $5::text[], $6, $7::integer, $8::integer, $9::float8) WITH ORDINALITY AS f(node_id, distance, score, rank)';
  const statement = withCells
    ? `SELECT f.distance, f.score, ${cellColumns('c')} FROM ${call} CROSS JOIN LATERAL ${byKey('cells', 'f.node_id::uuid')} AS c ORDER BY f.rank`
    : `SELECT f.node_id, f.distance, f.score FROM ${call} ORDER BY f.rank`;
  const result = await q.query<CellRow & { readonly distance: number; readonly score: number }>(statement, params);
  return result.rows.map(({ distance, score, ...cell }) => ({ node_id: cell.node_id, distance, score, ...(withCells ? { cell } : {}) }));
}
