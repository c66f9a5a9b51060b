/**
 * The lexical half of recall (docs/storage.md, "Lexical recall"): a cell's terms are the English
 * stems of its text plus its identifier tokens (src/core/identifier-tokens.ts), kept in cell_tenant_terms
 * under a GIN index (migration 0011). Every term is keyed by its tenant (migration 0014): stored as
 * the tenant's term prefix followed by the term, and each cell also holds the prefix alone, so a
 * tenant's terms are its own keys in the index and in the planner's statistics — every count,
 * bound and weight below describes the tenant's own cells, and another tenant's cells change none
 * of them. A query's terms are weighted by their rarity among the tenant's cells — inverse
 * document frequency from the planner's statistics of cell_tenant_terms (hyphae_term_statistics). The scan
 * looks up the query's rarest terms, none that more than `maxTermCells` of the tenant's cells hold:
 * a common word carries little weight, and it is what would make the scan grow with the table; a
 * cell scores the weight of the looked-up terms it holds.
 */
import { createHash } from 'node:crypto';
import type { SqlConditions } from './sql/conditions.js';

/** A cell's or a query's terms: stems of its text, and its identifier tokens verbatim (lower-cased). */
export interface LexicalText {
  readonly text: string;
  readonly identifiers: readonly string[];
}

/**
 * How a query's terms are weighted. `coverage`: each term by its rarity, the weights summing to 1
 * (lexical recall). `hybrid`: the identifiers share `identifier`, the other terms share `text` by
 * their rarity (added to the cosine similarity; docs/memory-model.md).
 */
export type TermWeighting = { readonly kind: 'coverage' } | { readonly kind: 'hybrid'; readonly identifier: number; readonly text: number };

/** The candidate scan looks up at most this many of the query's terms, the rarest. */
const MAX_SCAN_TERMS = 8;

/**
 * A tenant the statistics do not list (one of many small ones on a large table) has its cells
 * counted on the index for the weights, up to this many: a larger tenant is listed, unless the
 * table is very large, and is then weighed as if it held this many.
 */
const TENANT_CELLS_COUNTED = 10_000;

/**
 * What the tenant's terms start with in cell_tenant_terms (as the statistics list them too): the first 11 base64 characters (66 bits)
 * of the sha256 of its id, fixed-length so a term follows it unambiguously. The database has the
 * same as hyphae_tenant_term_prefix (migration 0014), for its backfill and for the rows servers of
 * an earlier version write during a rolling upgrade; a test holds the two equal. Two tenants
 * sharing a prefix would share counts (never cells: every candidate is checked against the
 * tenant); at 66 bits that takes billions of tenants.
 */
export function tenantTermPrefix(tenantId: string): string {
  return createHash('sha256').update(tenantId, 'utf8').digest('base64').slice(0, 11);
}

/** SQL for the cells the statistics `st` say hold the listed term (an SQL text expression), rounded to whole cells: the frequencies are single-precision. */
function listedCells(term: string): string {
  return `round(st.cells * st.frequencies[array_position(st.terms, ${term})])`;
}

/** SQL for the plain terms (text[]) of a text (an SQL expression) with its identifiers (an SQL text[] expression). */
function plainTerms(text: string, identifiers: string): string {
  return `tsvector_to_array(to_tsvector('english', ${text}) || array_to_tsvector(${identifiers}))`;
}

/**
 * SQL for what cell_tenant_terms holds for a cell: its tenant's prefix (an SQL text expression, from
 * tenantTermPrefix) alone — every cell of the tenant holds it, so the statistics count the tenant's
 * cells — and each term of its text (an SQL expression) and identifiers (an SQL text[] expression)
 * keyed by that prefix.
 */
export function cellTermsOf(prefix: string, text: string, identifiers: string): string {
  return `ARRAY[${prefix}] || ARRAY(SELECT ${prefix} || w FROM unnest(${plainTerms(text, identifiers)}) AS w)`;
}

/**
 * The query's terms keyed by the tenant (prefix bound at `prefix`), each with the tenant's cells
 * holding it and its weight. A term the statistics list takes their estimate, rounded to whole
 * cells (the frequencies are single-precision: 100 of 421 cells would read as 100.0000005, past a
 * bound of 100, where the table's size decided it); one they miss (rarer
 * than the sample showed, or new since) is counted on the GIN index up to one cell past the bound
 * (parameter `cap`): half the rarest listed term's frequency, the guess this replaced, called every
 * unlisted term too common on a large table. The tenant's cells (inverse document frequency's N)
 * are the statistics' estimate of the cells holding its prefix, or counted likewise when they do
 * not list it. Without statistics (a table never analysed) every term weighs the same.
 */
function queryTerms(where: SqlConditions, query: LexicalText, weighting: TermWeighting, cap: number, prefix: number): string {
  const [text, ids] = [where.bind(query.text), where.bind(query.identifiers)];
  const weight =
    weighting.kind === 'coverage'
      ? `idf / sum(idf) OVER ()`
      : `CASE WHEN identifier THEN $${where.bind(weighting.identifier)}::float8 / count(*) FILTER (WHERE identifier) OVER ()
          ELSE $${where.bind(weighting.text)}::float8 * idf / nullif(sum(idf) FILTER (WHERE NOT identifier) OVER (), 0) END`;
  return `SELECT term, cells, holders, COALESCE(${weight}, 0)::float8 AS weight FROM (
        SELECT t.term, t.identifier, f.cells, f.holders, ln(1 + (greatest(st.tenant_cells - f.cells, 0) + 0.5) / (f.cells + 0.5)) AS idf
        FROM (SELECT $${prefix}::text || w AS term, w = ANY($${ids}::text[]) AS identifier FROM unnest(${plainTerms(`$${text}`, `$${ids}::text[]`)}) AS w) AS t
        CROSS JOIN term_statistics AS st
        CROSS JOIN LATERAL (SELECT CASE WHEN st.terms IS NULL OR t.term = ANY(st.terms) THEN NULL
            ELSE ARRAY(SELECT h.node_id FROM cell_tenant_terms h WHERE h.terms @> ARRAY[t.term] LIMIT $${cap}::int + 1) END AS holders) AS counted
        CROSS JOIN LATERAL (SELECT counted.holders, CASE
            WHEN st.terms IS NULL THEN 0
            WHEN counted.holders IS NULL THEN ${listedCells('t.term')}
            ELSE cardinality(counted.holders) END AS cells) AS f
      ) AS rated`;
}

/** The CTE `term_statistics`: the planner's statistics of cell_tenant_terms, and the tenant's cells (prefix bound at `prefix`), read once. */
function termStatistics(prefix: number): string {
  return `term_statistics AS MATERIALIZED (SELECT st.cells, st.terms, st.frequencies, CASE
      WHEN st.terms IS NULL THEN 0
      WHEN $${prefix}::text = ANY(st.terms) THEN ${listedCells(`$${prefix}::text`)}
      ELSE (SELECT count(*) FROM (SELECT FROM cell_tenant_terms h WHERE h.terms @> ARRAY[$${prefix}::text] LIMIT ${TENANT_CELLS_COUNTED}) AS held) END AS tenant_cells
    FROM hyphae_term_statistics() AS st)`;
}

/**
 * What lexical matching adds to a ranked search: its CTEs, among them `scanned (term, weight,
 * holders)` — the terms looked up, what each adds to the score of a cell holding it, and the cells
 * found holding it when it was counted (null for a term the statistics list) — and a relation
 * `(node_id, matched)` of the cells holding them (before the search's filters), `matched` being
 * their lexical score. A cell holding none scores 0: the terms not looked up are the common ones,
 * which weigh little. Any other cell's score comes from its own terms (`lexicalScore`).
 */
export interface LexicalPart {
  readonly ctes: readonly string[];
  readonly matches: string;
}

/** SQL for the lexical score of a cell whose terms are the text[] expression `terms` (0 when it holds no scanned term). */
export function lexicalScore(terms: string): string {
  return `(SELECT COALESCE(sum(s.weight), 0) FROM scanned s WHERE s.term = ANY(${terms}))`;
}

/** Lexical matching on the query's weighted terms among the tenant's cells (lexical recall, and hybrid recall that weighs words): the rarest looked up. */
export function termMatching(where: SqlConditions, tenantId: string, query: LexicalText, weighting: TermWeighting, maxTermCells: number): LexicalPart {
  const [cap, prefix] = [where.bind(maxTermCells), where.bind(tenantTermPrefix(tenantId))];
  const terms = queryTerms(where, query, weighting, cap, prefix);
  return {
    ctes: [
      termStatistics(prefix),
      `scanned AS MATERIALIZED (SELECT term, weight, holders FROM (${terms}) AS query_terms WHERE weight > 0 AND cells <= $${cap}::int
      ORDER BY weight DESC, term LIMIT ${MAX_SCAN_TERMS})`,
    ],
    // A term counted on the index brings the cells it found; a listed one is looked up here.
    matches: `(SELECT held.node_id, sum(held.weight) AS matched FROM (
        SELECT s.weight, h.node_id FROM scanned s CROSS JOIN LATERAL unnest(s.holders) AS h(node_id) WHERE s.holders IS NOT NULL
        UNION ALL SELECT s.weight, t.node_id FROM scanned s JOIN cell_tenant_terms t ON t.terms @> ARRAY[s.term] WHERE s.holders IS NULL
      ) AS held GROUP BY held.node_id)`,
  };
}

/**
 * The CTE `rare_holders (cell, held)` of hybrid recall on identifiers alone (a model of meaning
 * already weighs the words): each identifier looked up on the GIN index under the tenant's key,
 * unless more than `maxTermCells` of the tenant's cells hold it (no rare name then), and how many of them each cell holds. No
 * statistics are read: reading one cell beyond the bound tells.
 */
export function rareIdentifierHolders(where: SqlConditions, tenantId: string, identifiers: readonly string[], maxTermCells: number): string {
  const prefix = tenantTermPrefix(tenantId);
  const [ids, cap] = [where.bind(identifiers.map((id) => prefix + id)), where.bind(maxTermCells)];
  return `rare_holders AS MATERIALIZED (SELECT held.node_id AS cell, count(*) AS held FROM (
      SELECT t.node_id, count(*) OVER (PARTITION BY i.id) AS holders FROM unnest($${ids}::text[]) AS i(id)
      CROSS JOIN LATERAL (SELECT node_id FROM cell_tenant_terms WHERE terms @> ARRAY[i.id] LIMIT $${cap} + 1) AS t) AS held
    WHERE held.holders <= $${cap} GROUP BY held.node_id)`;
}
