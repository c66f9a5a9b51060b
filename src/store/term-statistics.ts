/**
 * How common the terms of cell_tenant_terms are, from the planner's statistics (hyphae_term_statistics,
 * migration 0011): the table's row estimate and its most common terms with the share of cells
 * holding each. Recall reads them once in a while (src/service/recall/statistics-cache.ts) to leave
 * out of its lookups the identifiers too common to be one, without asking the index.
 */
import type { Queryable } from './db.js';

export interface TermStatistics {
  /** The planner's estimate of the cells (0 before the first ANALYZE). */
  readonly cells: number;
  /** The share of cells holding each of the most common terms (none before the first ANALYZE). */
  readonly shares: ReadonlyMap<string, number>;
}

export async function readTermStatistics(q: Queryable): Promise<TermStatistics> {
  const result = await q.query<{ cells: number; terms: string[] | null; frequencies: number[] | null }>(
    'SELECT cells, terms, frequencies FROM hyphae_term_statistics()',
  );
  const row = result.rows[0];
  const terms = row?.terms ?? [];
  const frequencies = row?.frequencies ?? [];
  // The frequencies list ends with three more figures (lowest, highest, nulls) than there are terms.
  return { cells: row?.cells ?? 0, shares: new Map(terms.map((term, i) => [term, frequencies[i] ?? 0])) };
}

/** Cells the statistics say hold the term, rounded to whole cells (the frequencies are single-precision); 0 for a term they do not list (rarer than every listed one). */
export function estimatedHolders(statistics: TermStatistics, term: string): number {
  return Math.round(statistics.cells * (statistics.shares.get(term) ?? 0));
}
