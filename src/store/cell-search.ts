/**
 * Recall's search over cells, in one statement per call (docs/memory-model.md, "Recall and query").
 * Vector candidates come from pgvector's HNSW index; its iterative scan (pgvector ≥ 0.8) keeps
 * walking the graph until the rows pass every filter, so filters never starve a result (relaxed
 * order is re-sorted here). Lexical candidates come from cell_tenant_terms' GIN index (lexical-terms.ts).
 * Every filter is a condition of each candidate scan. Every session of the database carries the
 * scan settings (db.knn, set by the driver: knn-session.ts), so a search is a single statement
 * unless k asks for a larger ef_search, which is set transaction-locally so nothing leaks to other
 * users of a pooled connection.
 */
import type { CellType, Layer, SearchMode } from '../core/cell-types.js';
import { CellConditions, type Validity } from './cell-conditions.js';
import { CELL_COLUMNS, cellColumns, type CellRow } from './cell-row.js';
import type { Db, Queryable } from './db.js';
import { MAX_EF_SEARCH, setTransactionEfSearch } from './knn-session.js';
import { lexicalScore, rareIdentifierHolders, tenantTermPrefix, termMatching, type LexicalText } from './lexical-terms.js';
import { estimatedHolders, type TermStatistics } from './term-statistics.js';
import { learntGain, type LearntEvidence } from './evidence-search.js';
import { learntNearestPlannedOnce, plannedOnce } from './learnt-nearest.js';
import { byKey } from './sql/by-key.js';
import type { VectorParam } from './vector-param.js';

/** Where a search looks: a named project, or the caller's current project resolved in the same statement. */
export type KnnProject =
  | { readonly kind: 'named'; readonly project: string }
  /** Several named projects at once (each already checked against the caller's scope). */
  | { readonly kind: 'projects'; readonly projects: readonly string[] }
  | {
      readonly kind: 'current';
      readonly agent: string;
      readonly defaultProject: string;
      /** The caller's project scope; null = all projects. */
      readonly projects: readonly string[] | null;
    };

/** A JSON scalar a metadata filter compares with. */
export type MetadataValue = string | number | boolean | null;

export interface KnnFilter {
  readonly tenantId: string;
  readonly project: KnnProject;
  readonly layer: Layer;
  readonly cellTypes?: readonly CellType[];
  readonly sceneId?: string;
  readonly validity?: Validity;
  /** Each key of the cell's metadata equals its value here. */
  readonly metadata?: Readonly<Record<string, MetadataValue>>;
  /** The cell's author is one of these agents. */
  readonly sourceAgents?: readonly string[];
  /** RFC 3339 bounds on created_at, both exclusive. */
  readonly createdAfter?: string;
  readonly createdBefore?: string;
  readonly minTrust?: number;
  /** Only chunks of knowledge sources, or only cells and chunks of memory sources (docs/sources.md); absent: every cell. */
  readonly kind?: 'memory' | 'knowledge';
  /** Only chunks of these sources (by source_id). */
  readonly sourceIds?: readonly string[];
  /** The cell's text holds each of these (words, or one phrase) as written, ignoring case. */
  readonly containsAll?: readonly string[];
}

/** A LIKE pattern matching `text` anywhere, its own wildcards escaped. */
function containing(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The condition of a kind: a chunk's kind is its source's; a cell of no source is memory. */
function kindCondition(n: number): string {
  const ofKind = `(project, source_id) IN (SELECT s.project, s.source_id FROM sources s WHERE s.tenant_id = $2 AND s.kind = $${n})`;
  return `CASE WHEN $${n} = 'knowledge' THEN source_id IS NOT NULL AND ${ofKind} ELSE source_id IS NULL OR ${ofKind} END`;
}

export interface CellSearch {
  readonly mode: SearchMode;
  readonly vector: VectorParam;
  readonly query: LexicalText;
  /** Hybrid: what the query's identifiers and its other terms add to the cosine similarity, at most. */
  readonly weights: { readonly identifier: number; readonly text: number };
  /** In [0, 1]: how much newer candidates move up (0: by relevance alone, 1: newest first). */
  readonly recencyBias: number;
  /** How common terms are (term-statistics.ts): hybrid recall looks up no identifier they say far more of the tenant's cells hold than its bound. */
  readonly termStatistics?: TermStatistics;
  /** Learning from ground truth on (evidence-search.ts): vector and hybrid recall read the tenant's evidence; absent, none is read. */
  readonly learnt?: LearntEvidence;
}

export interface KnnHit {
  readonly node_id: string;
  /** Cosine distance of the cell to the query, whatever ranked it. */
  readonly distance: number;
  /** What ranked it, higher first: vector 1 − distance; lexical the query's weight it holds (0–1); hybrid their sum. */
  readonly score: number;
  /** The whole cell, when the search was asked for it (withCells). */
  readonly cell?: CellRow;
}

/** Candidates each scan of a ranked search returns at least (more with a recency bias), so fusion and re-ranking have room. */
const MIN_POOL = 20;
/**
 * The lexical scan looks up no term more of the tenant's cells than this hold: lexical recall's own candidates, and
 * the rare terms (names, identifiers, jargon) hybrid recall adds to the nearest cells (lexical-terms.ts).
 */
const LEXICAL_TERM_CELLS = 1_000;
const HYBRID_TERM_CELLS = 100;
/**
 * An identifier the statistics say more than this many times the bound's cells hold is not looked
 * up: the bound would drop it anyway, unless the estimate were off by that much.
 */
const COMMON_IDENTIFIER_MARGIN = 2;

/** The k best cells for the search, best first, with an ef_search of at least 2k. */
export async function searchCells(db: Db, search: CellSearch, filter: KnnFilter, k: number, withCells = false): Promise<KnnHit[]> {
  const sessionEfSearch = db.knn.efSearch;
  const efSearch = Math.min(MAX_EF_SEARCH, Math.max(sessionEfSearch, k * 2));
  const run = (q: Queryable): Promise<KnnHit[]> => {
    if (isPlainKnn(search, filter.tenantId)) {
      const learnt = learntOf(search);
      if (learnt === undefined) return nearestCells(q, search.vector, filter, k, withCells);
      if (plannedOnce(filter, learnt)) return learntNearestPlannedOnce(q, search.vector, filter, learnt, Math.max(k, MIN_POOL), k, withCells);
      return learntNearestCells(q, search.vector, filter, learnt, k, withCells);
    }
    const weighsWords = search.mode === 'lexical' || (search.mode === 'hybrid' && search.weights.text > 0);
    return weighsWords ? termRankedCells(q, search, filter, k, withCells) : nearestRankedCells(q, search, filter, k, withCells);
  };
  if (efSearch === sessionEfSearch) return run(db);
  return db.transaction(async (tx) => {
    await setTransactionEfSearch(tx, efSearch);
    return run(tx);
  });
}

/** A search that ranks by cosine alone: vector mode, or hybrid when nothing lexical can add to it. */
function isPlainKnn(search: CellSearch, tenantId: string): boolean {
  if (search.recencyBias > 0) return false;
  if (search.mode === 'vector') return true;
  return search.mode === 'hybrid' && search.weights.text === 0 && identifiersToLookUp(search, tenantId).length === 0;
}

/** The query's identifiers hybrid recall looks up when it weighs identifiers alone: those the statistics do not call far too common among the tenant's cells. */
function identifiersToLookUp(search: CellSearch, tenantId: string): readonly string[] {
  const { termStatistics: statistics, query } = search;
  if (search.weights.identifier === 0) return [];
  if (statistics === undefined) return query.identifiers;
  const prefix = tenantTermPrefix(tenantId);
  return query.identifiers.filter((id) => estimatedHolders(statistics, prefix + id) <= COMMON_IDENTIFIER_MARGIN * HYBRID_TERM_CELLS);
}

/** The evidence a search reads: none when learning is off, and none in lexical mode, which ranks by words alone. */
function learntOf(search: CellSearch): LearntEvidence | undefined {
  return search.mode === 'lexical' ? undefined : search.learnt;
}

/** The filter as conditions on cells; $1 is the query vector, $2 the tenant, $3 the layer. */
function filterConditions(vector: VectorParam, filter: KnnFilter): CellConditions {
  const where = new CellConditions([vector, filter.tenantId, filter.layer], ['tenant_id = $2', 'layer = $3']);
  if (filter.project.kind === 'named') {
    where.add((n) => `project = $${n}`, filter.project.project);
  } else if (filter.project.kind === 'projects') {
    where.add((n) => `project = ANY($${n}::text[])`, filter.project.projects);
  } else {
    const { agent, defaultProject, projects } = filter.project;
    const [a, p, d] = [where.bind(agent), where.bind(projects), where.bind(defaultProject)];
    where.addRaw(`project = COALESCE((SELECT s.project FROM sessions s WHERE s.tenant_id = $2 AND s.agent = $${a} AND s.closed_at IS NULL
      AND ($${p}::text[] IS NULL OR s.project = ANY($${p}::text[])) ORDER BY s.opened_at DESC, s.session_id DESC LIMIT 1), $${d})`);
  }
  return where
    .add((n) => `cell_type = ANY($${n}::text[])`, filter.cellTypes)
    .add((n) => `scene_id = $${n}`, filter.sceneId)
    .add((n) => `metadata @> $${n}::jsonb`, filter.metadata === undefined ? undefined : JSON.stringify(filter.metadata))
    .add((n) => `source_agent = ANY($${n}::text[])`, filter.sourceAgents)
    .add((n) => `created_at > $${n}::timestamptz`, filter.createdAfter)
    .add((n) => `created_at < $${n}::timestamptz`, filter.createdBefore)
    .add((n) => `trust >= $${n}::real`, filter.minTrust)
    .add(kindCondition, filter.kind)
    .add((n) => `source_id = ANY($${n}::text[])`, filter.sourceIds)
    .add((n) => `lower(content) LIKE ALL($${n}::text[])`, filter.containsAll?.map(containing))
    .validity(filter.validity);
}

/**
 * k nearest cells by cosine distance on the HNSW index, in the index's relaxed order (searchCells
 * sorts them). With withCells the same statement returns each hit's cell, so a caller that shows
 * the cells needs no second round trip.
 */
export async function nearestCells(q: Queryable, vector: VectorParam, filter: KnnFilter, k: number, withCells = false): Promise<KnnHit[]> {
  const where = filterConditions(vector, filter);
  const order = `WHERE ${where.sql} ORDER BY embedding <=> $1::vector LIMIT $${where.bind(k)}`;
  const columns = withCells ? `, ${CELL_COLUMNS}` : '';
  const result = await q.query<CellRow & { readonly distance: number }>(
    `SELECT (embedding <=> $1::vector)::float8 AS distance${columns}${withCells ? '' : ', node_id::text AS node_id'} FROM cells ${order}`,
    where.params,
  );
  return result.rows
    .map(({ distance, ...cell }) => ({ node_id: cell.node_id, distance, score: 1 - distance, ...(withCells ? { cell } : {}) }))
    .sort((a, b) => a.distance - b.distance);
}

/** Cosine ranking with learnt evidence: the nearest cells (at least MIN_POOL, so evidence can lift one from beyond k), each with its gain, ranked. */
async function learntNearestCells(q: Queryable, vector: VectorParam, filter: KnnFilter, learnt: LearntEvidence, k: number, withCells: boolean): Promise<KnnHit[]> {
  const where = filterConditions(vector, filter);
  const pool = where.bind(Math.max(k, MIN_POOL));
  const nearest = `SELECT (embedding <=> $1::vector)::float8 AS distance, ${withCells ? CELL_COLUMNS : 'node_id::text AS node_id'} FROM cells
    WHERE ${where.sql} ORDER BY embedding <=> $1::vector LIMIT $${pool}`;
  const scored = `SELECT nearest.*, (1 - nearest.distance + learnt.gain)::float8 AS score FROM (${nearest}) AS nearest
    ${learntGain(where, learnt, 'nearest.node_id::uuid', 'nearest.distance')}`;
  return rankedHits(q, where, [], scored, 0, k, withCells);
}

/**
 * Lexical recall and hybrid recall that weighs words: the nearest cells on the HNSW index (hybrid)
 * and the cells holding the query's rarest terms on the GIN index, the best of those by their
 * lexical score, scored together and ranked, in one statement. Every cell a candidate list names
 * is read on its primary key, one row at a time (a subquery behind OFFSET 0 that states nothing but
 * the key): the plan cannot depend on statistics, so a database never analysed cannot turn the
 * lookups into a walk of another index per candidate.
 */
async function termRankedCells(q: Queryable, search: CellSearch, filter: KnnFilter, k: number, withCells: boolean): Promise<KnnHit[]> {
  const where = filterConditions(search.vector, filter);
  const pool = where.bind(Math.max(search.recencyBias > 0 ? 2 * k : k, MIN_POOL));
  const lexical = search.mode === 'lexical'
    ? termMatching(where, filter.tenantId, search.query, { kind: 'coverage' }, LEXICAL_TERM_CELLS)
    : termMatching(where, filter.tenantId, search.query, { kind: 'hybrid', ...search.weights }, HYBRID_TERM_CELLS);
  const scans = [
    `(SELECT m.node_id FROM ${lexical.matches} AS m
      CROSS JOIN LATERAL (SELECT 1 FROM ${byKey('cells', 'm.node_id')} AS cells WHERE ${where.sql}) AS passing
      ORDER BY m.matched DESC, m.node_id LIMIT $${pool})`,
    ...(search.mode === 'lexical' ? [] : [`(SELECT node_id FROM cells WHERE ${where.sql} ORDER BY embedding <=> $1::vector LIMIT $${pool})`]),
  ];
  const learnt = learntOf(search);
  const matched = lexicalScore('ct.terms');
  const gain = learnt === undefined ? '' : ' + learnt.gain';
  const score = search.mode === 'lexical' ? matched : `1 - (c.embedding <=> $1::vector) + ${matched}${gain}`;
  const columns = [withCells ? cellColumns('c') : 'c.node_id::text AS node_id', ...(search.recencyBias > 0 ? ['c.created_at AS stored_at'] : [])];
  const scored = `SELECT (c.embedding <=> $1::vector)::float8 AS distance, (${score})::float8 AS score, ${columns.join(', ')}
    FROM (${scans.join(' UNION ')}) AS pool CROSS JOIN LATERAL ${byKey('cells', 'pool.node_id')} AS c
    LEFT JOIN LATERAL ${byKey('cell_tenant_terms', 'pool.node_id')} AS ct ON true
    ${learnt === undefined ? '' : learntGain(where, learnt, 'c.node_id', '(c.embedding <=> $1::vector)')}
    WHERE c.tenant_id = $2`;
  return rankedHits(q, where, lexical.ctes, scored, search.recencyBias, k, withCells);
}

/**
 * Hybrid recall that weighs identifiers alone, and vector recall with a recency bias: the nearest
 * cells on the HNSW index, with their distance, and every cell holding one of the query's rare
 * identifiers (at most HYBRID_TERM_CELLS cells hold it; read on its primary key and filtered), in
 * one statement, each cell read once.
 */
async function nearestRankedCells(q: Queryable, search: CellSearch, filter: KnnFilter, k: number, withCells: boolean): Promise<KnnHit[]> {
  const where = filterConditions(search.vector, filter);
  const pool = where.bind(Math.max(search.recencyBias > 0 ? 2 * k : k, MIN_POOL));
  const identifiers = search.mode === 'hybrid' ? identifiersToLookUp(search, filter.tenantId) : [];
  const columns = [withCells ? CELL_COLUMNS : 'node_id::text AS node_id', ...(search.recencyBias > 0 ? ['created_at AS stored_at'] : [])].join(', ');
  const candidates = [`(SELECT 0::bigint AS held, (embedding <=> $1::vector)::float8 AS distance, ${columns} FROM cells
      WHERE ${where.sql} ORDER BY embedding <=> $1::vector LIMIT $${pool})`];
  const learnt = learntOf(search);
  const ctes: string[] = [];
  let share = '0';
  if (identifiers.length > 0) {
    ctes.push(rareIdentifierHolders(where, filter.tenantId, identifiers, HYBRID_TERM_CELLS));
    share = `$${where.bind(search.weights.identifier / Math.max(1, search.query.identifiers.length))}::float8`;
    candidates.push(`(SELECT r.held, (embedding <=> $1::vector)::float8, ${columns} FROM rare_holders AS r
      CROSS JOIN LATERAL ${byKey('cells', 'r.cell')} AS cells WHERE ${where.sql})`);
  }
  // A cell both lists name comes once, with the identifiers it holds.
  const gain = learnt === undefined ? '' : ' + learnt.gain';
  const scored = `SELECT pool.*, (1 - distance + ${share} * held${gain})::float8 AS score
    FROM (SELECT DISTINCT ON (node_id) * FROM (${candidates.join(' UNION ALL ')}) AS candidates ORDER BY node_id, held DESC) AS pool
    ${learnt === undefined ? '' : learntGain(where, learnt, 'pool.node_id::uuid', 'pool.distance')}`;
  return rankedHits(q, where, ctes, scored, search.recencyBias, k, withCells);
}

/** Runs a ranked search's statement: the scored candidates ranked (relevance blended with recency when asked), the best k. */
async function rankedHits(q: Queryable, where: CellConditions, ctes: readonly string[], scored: string, recencyBias: number, k: number, withCells: boolean): Promise<KnnHit[]> {
  const limit = where.bind(k);
  const ranked =
    recencyBias === 0
      ? `${scored} ORDER BY score DESC, distance, node_id LIMIT $${limit}`
      : `SELECT * FROM (SELECT scored.*, ${recencyRanking(where.bind(recencyBias))} AS ranking FROM (${scored}) AS scored) AS ranked
         ORDER BY ranking DESC, distance, node_id LIMIT $${limit}`;
  const statement = ctes.length === 0 ? ranked : `WITH ${ctes.join(',\n    ')}\n    ${ranked}`;
  const result = await q.query<CellRow & { readonly distance: number; readonly score: number; readonly held?: number; readonly stored_at?: Date; readonly ranking?: number }>(statement, where.params);
  // held, stored_at and ranking only order the rows.
  return result.rows.map(({ distance, score: rank, held: _held, stored_at: _storedAt, ranking: _ranking, ...cell }) => ({
    node_id: cell.node_id,
    distance,
    score: rank,
    ...(withCells ? { cell } : {}),
  }));
}

/** Relevance and recency, each scaled to [0, 1] over the candidates, blended by the bias bound at $n. */
function recencyRanking(n: number): string {
  const scaled = (x: string): string => `COALESCE((${x} - min(${x}) OVER ()) / NULLIF(max(${x}) OVER () - min(${x}) OVER (), 0), 1)`;
  return `(1 - $${n}::float8) * ${scaled('scored.score')} + $${n}::float8 * ${scaled('extract(epoch FROM scored.stored_at)')}`;
}
