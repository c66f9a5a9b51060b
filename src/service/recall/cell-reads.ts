/** The facade's cell reads: one cell (now or as of an instant), its history, a page of cells, and recall/query by meaning. */
import type { CellHistory, MemoryNode, Page, RecallResult } from '../../core/entities.js';
import { NotFoundError } from '../../core/errors.js';
import { canAccessProject, type Principal } from '../../core/principal.js';
import { identifierTokens } from '../../core/identifier-tokens.js';
import { listCellsInputSchema, queryInputSchema, recallInputSchema, searchProjectInputSchema, timestampInputSchema, type RecallInput, type ValidityInput } from '../../core/schemas.js';
import { cellHistory, listCells } from '../../store/cell-repository.js';
import { restatementRecordsOf } from '../../store/restatement-repository.js';
import { searchCells, type KnnProject } from '../../store/cell-search.js';
import type { LearntEvidence } from '../../store/evidence-search.js';
import { adjacentChunks, chunksOfSources, type ChunkOfSource } from '../../store/source-chunk-repository.js';
import { oneHopRelations } from '../../store/subgraph-query.js';
import { GRAPH_CONTEXT_PER_HIT, type Relation } from '../../core/relation-schemas.js';
import { readableProjects, requireProject } from '../facade/authorization.js';
import { parseInput, parseUuid } from '../facade/input-validation.js';
import type { HydrateOption, MemoryFacade } from '../memory-facade.js';
import { decodeCursor, pageOf } from '../facade/page-cursor.js';
import type { FacadeContext } from '../facade/facade-context.js';
import { validityOf } from '../facade/read-validity.js';
import { narrowedBy, searchNarrowing, searchedProjects } from './search-narrowing.js';
import { visibleCell } from '../facade/visibility.js';
import { logRecall, newRequestId } from './recall-log.js';
import type { RecallOperation } from '../../store/recall-log-repository.js';

export type CellReadOperations = Pick<MemoryFacade, 'getCell' | 'cellHistory' | 'listCells' | 'recall' | 'query'>;

export function cellReadOperations(ctx: FacadeContext): CellReadOperations {
  return {
    async getCell(principal, nodeId, options): Promise<MemoryNode> {
      const row = await visibleCell(ctx.db, principal, parseUuid('node_id', nodeId));
      if (options?.asOf === undefined) return ctx.node(row);
      const asOf = Date.parse(parseInput(timestampInputSchema, options.asOf));
      const version = (await cellHistory(ctx.db, principal.tenantId, row.node_id)).find(
        (v) => Date.parse(v.valid_from) <= asOf && (v.valid_until === null || Date.parse(v.valid_until) > asOf),
      );
      if (version === undefined) throw new NotFoundError('cell', nodeId);
      return ctx.node(version);
    },

    async cellHistory(principal, nodeId): Promise<CellHistory> {
      const row = await visibleCell(ctx.db, principal, parseUuid('node_id', nodeId));
      const versions = (await cellHistory(ctx.db, principal.tenantId, row.node_id)).filter((v) => canAccessProject(principal, v.project));
      const corroborations = await restatementRecordsOf(
        ctx.db,
        principal.tenantId,
        versions.map((v) => v.node_id),
      );
      return { cells: versions.map((v) => ctx.node(v)), corroborations };
    },

    async listCells(principal, raw): Promise<Page<MemoryNode>> {
      const input = parseInput(listCellsInputSchema, raw);
      const after = decodeCursor(input.cursor);
      if (input.project !== undefined && !canAccessProject(principal, input.project)) return { items: [], next_cursor: null };
      const rows = await listCells(
        ctx.db,
        principal.tenantId,
        {
          projects: readableProjects(principal),
          ...(input.project === undefined ? {} : { project: input.project }),
          ...(input.scene_id === undefined ? {} : { sceneId: input.scene_id }),
          ...(input.cell_type === undefined ? {} : { cellType: input.cell_type }),
          ...(input.layer === undefined ? {} : { layer: input.layer }),
          ...(input.author === undefined ? {} : { author: input.author }),
          validity: validityOf({
            ...(input.include_superseded === undefined ? {} : { include_superseded: input.include_superseded }),
            ...(input.as_of === undefined ? {} : { as_of: input.as_of }),
          }),
        },
        after,
        input.limit,
      );
      const page = pageOf(rows, input.limit, (r) => ({ createdAt: r.created_at, id: r.node_id }));
      return { items: page.rows.map((r) => ctx.node(r)), next_cursor: page.next };
    },

    async recall(principal, raw, options): Promise<RecallResult> {
      const input = parseInput(recallInputSchema, raw);
      return search(ctx, principal, input, 'L0', options, 'recall');
    },

    async query(principal, raw, options): Promise<RecallResult> {
      const input = parseInput(queryInputSchema, raw);
      return search(ctx, principal, input, input.layer, options, 'query');
    },
  };
}

type SearchInput = Omit<RecallInput, 'query'> & { readonly query: string };

/** Where a search looks: a project of the key's scope when named (REST), else the principal's current project. */
function searchedProject(principal: Principal, options: HydrateOption | undefined): KnnProject {
  if (options?.project === undefined) {
    return { kind: 'current', agent: principal.agent, defaultProject: principal.defaultProject, projects: readableProjects(principal) };
  }
  const { project } = parseInput(searchProjectInputSchema, { project: options.project });
  requireProject(principal, project);
  return { kind: 'named', project };
}

/** The projects a search looks in, the current one resolved as the search resolves it. */
async function projectNames(ctx: FacadeContext, principal: Principal, project: KnnProject): Promise<readonly string[]> {
  if (project.kind === 'projects') return project.projects;
  return [project.kind === 'named' ? project.project : (await ctx.scopes.resolve(ctx.db, principal)).project];
}

/**
 * Recall in the principal's current project (or a named one), ranked by the input's mode (the
 * configured one by default), every filter inside the search; the hits are recorded (batched) for
 * energy and promotion, and the answer is logged under its request_id (recall-log.ts).
 */
async function search(ctx: FacadeContext, principal: Principal, input: SearchInput, layer: MemoryNode['layer'], options: HydrateOption | undefined, operation: RecallOperation): Promise<RecallResult> {
  const project = searchedProjects(principal, options) ?? searchedProject(principal, options);
  const [vector, searchedNames, narrowing] = await Promise.all([ctx.embed(input.query), projectNames(ctx, principal, project), searchNarrowing(ctx, principal, options)]);
  const withNodes = options?.withNodes === true;
  const mode = input.mode ?? ctx.config.recallMode;
  const identifiers = identifierTokens(input.query);
  // Only hybrid recall judges identifiers by how common they are.
  const termStatistics = mode === 'hybrid' && identifiers.length > 0 ? ctx.termStatistics.current() : undefined;
  const found = await searchCells(
    ctx.db,
    {
      mode,
      vector,
      query: { text: input.query, identifiers },
      weights: ctx.config.hybridWeights,
      recencyBias: input.recency_bias ?? 0,
      ...(termStatistics === undefined ? {} : { termStatistics }),
      ...(ctx.config.feedbackLearning ? { learnt: learning(ctx, mode, input.min_trust, project.kind === 'current' ? searchedNames[0] : undefined) } : {}),
    },
    {
      tenantId: principal.tenantId,
      project,
      layer,
      ...(input.cell_types === undefined ? {} : { cellTypes: input.cell_types }),
      ...(input.scene_id === undefined ? {} : { sceneId: input.scene_id }),
      ...(input.metadata === undefined ? {} : { metadata: input.metadata }),
      ...(input.source_agents === undefined ? {} : { sourceAgents: input.source_agents }),
      ...(input.created_after === undefined ? {} : { createdAfter: input.created_after }),
      ...(input.created_before === undefined ? {} : { createdBefore: input.created_before }),
      ...(input.min_trust === undefined ? {} : { minTrust: input.min_trust }),
      ...(input.kind === undefined || input.kind === 'all' ? {} : { kind: input.kind }),
      ...narrowing,
      validity: validityOf(options?.validity),
    },
    input.k,
    withNodes,
  );
  ctx.hits.record(
    principal.tenantId,
    found.map((h) => h.node_id),
  );
  const ids = found.map((h) => h.node_id);
  const requestId = newRequestId();
  const { query, ...rest } = input;
  const logged = { operation, projects: searchedNames, query, vector, arguments: { ...rest, ...options?.validity, ...narrowedBy(options) }, resultIds: ids };
  const [chunks, related, graph] = await Promise.all([
    chunksOfSources(ctx.db, principal.tenantId, ids),
    adjacentChunks(ctx.db, principal.tenantId, ids, input.num_related_chunks ?? 0),
    input.graph_context === true ? oneHopRelations(ctx.db, { tenantId: principal.tenantId, projects: readableProjects(principal), nodeIds: ids, perCell: GRAPH_CONTEXT_PER_HIT, at: graphInstant(ctx, options?.validity) }) : undefined,
    logRecall(ctx, principal, requestId, logged),
  ]);
  const source = (id: string): { source?: ChunkOfSource; related_chunks?: string[]; relations?: Relation[] } => {
    const chunk = chunks.get(id);
    const near = related.get(id);
    const context = graph === undefined ? {} : { relations: graph.get(id) ?? [] };
    return chunk === undefined ? context : { source: chunk, ...(near === undefined ? {} : { related_chunks: near }), ...context };
  };
  if (!withNodes) return { request_id: requestId, results: found.map(({ node_id, distance, score }) => ({ node_id, distance, score, ...source(node_id) })) };
  // The search statement returned the cells themselves: no second read by id.
  return {
    request_id: requestId,
    results: found.flatMap((h) => (h.cell === undefined ? [] : [{ node_id: h.node_id, distance: h.distance, score: h.score, node: ctx.node(h.cell), ...source(h.node_id) }])),
  };
}

/**
 * Learning's part of a search; vector recall also gets how the cells are shared among tenants,
 * layers and projects (read only while learning is on) and the current project as resolved here,
 * for its choice of plan.
 */
function learning(ctx: FacadeContext, mode: RecallInput['mode'], minTrust: number | undefined, currentProject: string | undefined): LearntEvidence {
  const statistics = mode === 'lexical' ? undefined : ctx.cellStatistics.current();
  return {
    minSimilarity: ctx.config.evidenceSimilarity,
    ...(minTrust === undefined ? {} : { minTrust }),
    ...(statistics === undefined ? {} : { statistics }),
    ...(currentProject === undefined ? {} : { currentProject }),
  };
}

/** The instant whose declared relations graph_context gives: the read's as_of, else now. */
function graphInstant(ctx: FacadeContext, validity: ValidityInput | undefined): Date {
  return validity?.as_of === undefined ? ctx.clock() : new Date(validity.as_of);
}
