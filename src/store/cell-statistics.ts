/**
 * How the cells are shared among tenants, layers and projects, from the planner's statistics: the
 * table's row estimate and, for each of those columns, its most common values with the share of cells
 * holding each. Recall reads them once in a while (src/service/recall/statistics-cache.ts) to know,
 * without asking the table, which searches cover most of the cells: their learnt vector recall takes
 * a statement planned once (learnt-nearest.ts).
 */
import type { Queryable } from './db.js';

export const CELL_STATISTICS_COLUMNS = ['tenant_id', 'layer', 'project'] as const;
export type CellStatisticsColumn = (typeof CELL_STATISTICS_COLUMNS)[number];

export interface CellStatistics {
  /** The planner's estimate of the cells (0 before the first ANALYZE). */
  readonly cells: number;
  /** Per column, the share of cells each of its most common values holds (none before the first ANALYZE). */
  readonly shares: Readonly<Record<CellStatisticsColumn, ReadonlyMap<string, number>>>;
}

export async function readCellStatistics(q: Queryable): Promise<CellStatistics> {
  const result = await q.query<{ cells: number; attname: string | null; vals: string[] | null; frequencies: number[] | null }>(
    `SELECT greatest(c.reltuples, 0)::float8 AS cells, s.attname::text AS attname, s.most_common_vals::text::text[] AS vals, s.most_common_freqs AS frequencies
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       LEFT JOIN pg_stats s ON s.schemaname = n.nspname AND s.tablename = 'cells' AND s.attname = ANY($1::text[])
      WHERE c.oid = 'cells'::regclass`,
    [CELL_STATISTICS_COLUMNS],
  );
  const shares = (column: CellStatisticsColumn): ReadonlyMap<string, number> => {
    const row = result.rows.find((r) => r.attname === column);
    const vals = row?.vals ?? [];
    return new Map(vals.map((value, i) => [value, row?.frequencies?.[i] ?? 0]));
  };
  return { cells: result.rows[0]?.cells ?? 0, shares: { tenant_id: shares('tenant_id'), layer: shares('layer'), project: shares('project') } };
}

/** The share of the cells the statistics say hold all these values, taking the columns as independent; 0 when they list one of the values not at all. */
export function estimatedShare(statistics: CellStatistics, values: Partial<Record<CellStatisticsColumn, string>>): number {
  return Object.entries(values).reduce((share, [column, value]) => share * (statistics.shares[column as CellStatisticsColumn].get(value) ?? 0), 1);
}
