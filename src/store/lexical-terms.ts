/**
 * The lexical half of recall (docs/storage.md, "Lexical recall"): a cell's terms are the English
 * stems of its text plus its identifier tokens (src/core/identifier-tokens.ts), kept in cell_terms
 * under a GIN index (migration 0011). A query's terms are weighted by their rarity — inverse
 * document frequency from the planner's statistics of cell_terms (hyphae_term_statistics), so no
 * statement counts anything. The scan looks up the query's rarest terms, none that more than
 * `maxTermCells` cells hold: a common word carries little weight, and it is what would make the
 * scan grow with the table; a cell scores the weight of the looked-up terms it holds.
 */
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

/** SQL for the terms of a text (an SQL expression) with its identifiers (an SQL text[] expression). */
export function termsOf(text: string, identifiers: string): string {
  return `tsvector_to_array(to_tsvector('english', ${text}) || array_to_tsvector(${identifiers}))`;
}

/**
 * The query's terms, each with the cells holding it and its weight. A term the statistics list
 * takes their estimate; one they miss (rarer than the sample showed, or new since) is counted on
 * the GIN index up to one cell past the bound (parameter `cap`): half the rarest listed term's
 * frequency, the guess this replaced, called every unlisted term too common on a large table.
 * Without statistics (a table never analysed) every term weighs the same.
 */
function queryTerms(where: SqlConditions, query: LexicalText, weighting: TermWeighting, cap: number): string {
  const [text, ids] = [where.bind(query.text), where.bind(query.identifiers)];
  const weight =
    weighting.kind === 'coverage'
      ? `idf / sum(idf) OVER ()`
      : `CASE WHEN identifier THEN $${where.bind(weighting.identifier)}::float8 / count(*) FILTER (WHERE identifier) OVER ()
          ELSE $${where.bind(weighting.text)}::float8 * idf / nullif(sum(idf) FILTER (WHERE NOT identifier) OVER (), 0) END`;
  return `SELECT term, cells, holders, COALESCE(${weight}, 0)::float8 AS weight FROM (
        SELECT t.term, t.term = ANY($${ids}::text[]) AS identifier, f.cells, f.holders, ln(1 + (st.cells - f.cells + 0.5) / (f.cells + 0.5)) AS idf
        FROM unnest(${termsOf(`$${text}`, `$${ids}::text[]`)}) AS t(term)
        CROSS JOIN hyphae_term_statistics() AS st
        CROSS JOIN LATERAL (SELECT CASE WHEN st.terms IS NULL OR t.term = ANY(st.terms) THEN NULL
            ELSE ARRAY(SELECT h.node_id FROM cell_terms h WHERE h.terms @> ARRAY[t.term] LIMIT $${cap}::int + 1) END AS holders) AS counted
        CROSS JOIN LATERAL (SELECT counted.holders, CASE
            WHEN st.terms IS NULL THEN 0
            WHEN counted.holders IS NULL THEN st.cells * st.frequencies[array_position(st.terms, t.term)]
            ELSE cardinality(counted.holders) END AS cells) AS f
      ) AS rated`;
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

/** Lexical matching on the query's weighted terms (lexical recall, and hybrid recall that weighs words): the rarest looked up. */
export function termMatching(where: SqlConditions, query: LexicalText, weighting: TermWeighting, maxTermCells: number): LexicalPart {
  const cap = where.bind(maxTermCells);
  const terms = queryTerms(where, query, weighting, cap);
  return {
    ctes: [
      `scanned AS MATERIALIZED (SELECT term, weight, holders FROM (${terms}) AS query_terms WHERE weight > 0 AND cells <= $${cap}::int
      ORDER BY weight DESC, term LIMIT ${MAX_SCAN_TERMS})`,
    ],
    // A term counted on the index brings the cells it found; a listed one is looked up here.
    matches: `(SELECT held.node_id, sum(held.weight) AS matched FROM (
        SELECT s.weight, h.node_id FROM scanned s CROSS JOIN LATERAL unnest(s.holders) AS h(node_id) WHERE s.holders IS NOT NULL
        UNION ALL SELECT s.weight, t.node_id FROM scanned s JOIN cell_terms t ON t.terms @> ARRAY[s.term] WHERE s.holders IS NULL
      ) AS held GROUP BY held.node_id)`,
  };
}

/**
 * The CTE `rare_holders (cell, held)` of hybrid recall on identifiers alone (a model of meaning
 * already weighs the words): each identifier looked up on the GIN index, unless more than
 * `maxTermCells` cells hold it (no rare name then), and how many of them each cell holds. No
 * statistics are read: reading one cell beyond the bound tells.
 */
export function rareIdentifierHolders(where: SqlConditions, identifiers: readonly string[], maxTermCells: number): string {
  const [ids, cap] = [where.bind(identifiers), where.bind(maxTermCells)];
  return `rare_holders AS MATERIALIZED (SELECT held.node_id AS cell, count(*) AS held FROM (
      SELECT t.node_id, count(*) OVER (PARTITION BY i.id) AS holders FROM unnest($${ids}::text[]) AS i(id)
      CROSS JOIN LATERAL (SELECT node_id FROM cell_terms WHERE terms @> ARRAY[i.id] LIMIT $${cap} + 1) AS t) AS held
    WHERE held.holders <= $${cap} GROUP BY held.node_id)`;
}
