/**
 * Ground truth of a feedback (docs/feedback.md): which cells and sources its ids name, refused
 * like a missing id when the caller cannot read them; where the first of them ranked in the
 * judged answer; and which cells a learner is told are true.
 */
import { NotFoundError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import type { Queryable } from '../../store/db.js';
import { readableCellIds, sourceIdsOfProjects, standInChunks } from '../../store/feedback-repository.js';
import type { RecallLogRow } from '../../store/recall-log-repository.js';
import { chunksOfSources } from '../../store/source-chunk-repository.js';
import type { VectorParam } from '../../store/vector-param.js';

export interface GroundTruth {
  /** The cells named, each readable by the caller. */
  readonly cellIds: readonly string[];
  /** The sources of the judged request's projects named. */
  readonly sourceIds: readonly string[];
}

/**
 * Each id a cell or a source of one of the request's projects (all of them readable by the caller: the request was
 * judgeable); the first that is neither is NOT_FOUND. A cell of another project is refused too: the quality page
 * shows the truth to that project's admins, and evidence would carry the query to the other project.
 */
export async function resolveGroundTruth(q: Queryable, principal: Principal, request: RecallLogRow, ids: readonly string[]): Promise<GroundTruth> {
  const unique = [...new Set(ids)];
  const cells = await readableCellIds(q, principal.tenantId, unique, request.projects);
  const rest = unique.filter((id) => !cells.has(id.toLowerCase()));
  const sources = await sourceIdsOfProjects(q, principal.tenantId, request.projects, rest);
  const missing = rest.find((id) => !sources.has(id));
  if (missing !== undefined) throw new NotFoundError('ground truth item', missing);
  return { cellIds: [...cells], sourceIds: [...sources] };
}

/** The 1-based rank of the first ranked id that is a true cell or a chunk of a true source; null when none was surfaced. */
export async function truthRank(q: Queryable, tenantId: string, request: RecallLogRow, truth: GroundTruth): Promise<{ rank: number | null; rankedChunks: Map<string, string> }> {
  const rankedChunks = new Map<string, string>();
  if (truth.sourceIds.length > 0) {
    for (const [nodeId, chunk] of await chunksOfSources(q, tenantId, request.resultIds)) rankedChunks.set(nodeId, chunk.source_id);
  }
  const cells = new Set(truth.cellIds);
  const sources = new Set(truth.sourceIds);
  const index = request.resultIds.findIndex((id) => cells.has(id) || sources.has(rankedChunks.get(id) ?? ''));
  return { rank: index < 0 ? null : index + 1, rankedChunks };
}

/** The true cells a learner is given: the cells named, and per source its ranked chunks, else its chunk standing in for it. */
export async function truthCellsForLearning(
  q: Queryable,
  tenantId: string,
  request: RecallLogRow,
  truth: GroundTruth,
  rankedChunks: ReadonlyMap<string, string>,
  vector: VectorParam | null,
): Promise<string[]> {
  const ranked = request.resultIds.filter((id) => truth.sourceIds.includes(rankedChunks.get(id) ?? ''));
  const unranked = truth.sourceIds.filter((source) => !ranked.some((id) => rankedChunks.get(id) === source));
  const standIns = await standInChunks(q, tenantId, request.projects, unranked, vector);
  return [...new Set([...truth.cellIds, ...ranked, ...standIns])];
}
