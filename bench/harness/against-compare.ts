/** Before/after figures matched by metric name: medians over the rounds, after ÷ before, and which way is better by unit. */
import { formatFigure, printTable } from './table.js';
import type { BenchRow } from './section.js';

export type Direction = 'higher' | 'lower' | 'unknown';

/** Which way a figure improves, read from its unit: times and sizes down, rates and fractions up. */
export function directionOf(unit: string): Direction {
  if (/^(ms|s|µs|ms \(p50\)|ms\/s|round trips|bytes|KiB|MiB|GiB)$/.test(unit)) return 'lower';
  if (/\/s$/.test(unit) || unit === 'fraction' || /^of \d+$/.test(unit)) return 'higher';
  return 'unknown';
}

export interface MetricComparison {
  readonly metric: string;
  readonly unit: string;
  readonly before?: number;
  readonly after?: number;
  /** after ÷ before of the values. */
  readonly change?: number;
  /** The change turned so that above 1 is better and below 1 worse; undefined when the unit says no direction. */
  readonly score?: number;
  readonly ratioBefore?: number;
  readonly ratioAfter?: number;
}

function median(values: readonly number[]): number | undefined {
  const finite = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (finite.length === 0) return undefined;
  const mid = Math.floor(finite.length / 2);
  return finite.length % 2 === 1 ? finite[mid] : ((finite[mid - 1] as number) + (finite[mid] as number)) / 2;
}

/** Each metric of either side, in the after side's order (then those only before had), compared. */
export function compareRuns(before: readonly (readonly BenchRow[])[], after: readonly (readonly BenchRow[])[]): MetricComparison[] {
  const collect = (runs: readonly (readonly BenchRow[])[]): Map<string, BenchRow[]> => {
    const byMetric = new Map<string, BenchRow[]>();
    for (const rows of runs) for (const row of rows) byMetric.set(row.metric, [...(byMetric.get(row.metric) ?? []), row]);
    return byMetric;
  };
  const b = collect(before);
  const a = collect(after);
  const names = [...new Set([...a.keys(), ...b.keys()])];
  return names.map((metric) => {
    const rowsBefore = b.get(metric) ?? [];
    const rowsAfter = a.get(metric) ?? [];
    const unit = (rowsAfter[0] ?? rowsBefore[0])?.unit ?? '';
    const valueBefore = median(rowsBefore.map((r) => r.value));
    const valueAfter = median(rowsAfter.map((r) => r.value));
    const ratioBefore = median(rowsBefore.flatMap((r) => (r.ratio === undefined ? [] : [r.ratio])));
    const ratioAfter = median(rowsAfter.flatMap((r) => (r.ratio === undefined ? [] : [r.ratio])));
    const change = valueBefore === undefined || valueAfter === undefined || valueBefore === 0 ? undefined : valueAfter / valueBefore;
    const direction = directionOf(unit);
    const score = change === undefined || direction === 'unknown' ? undefined : direction === 'higher' ? change : 1 / change;
    return {
      metric,
      unit,
      ...(valueBefore === undefined ? {} : { before: valueBefore }),
      ...(valueAfter === undefined ? {} : { after: valueAfter }),
      ...(change === undefined ? {} : { change }),
      ...(score === undefined ? {} : { score }),
      ...(ratioBefore === undefined ? {} : { ratioBefore }),
      ...(ratioAfter === undefined ? {} : { ratioAfter }),
    };
  });
}

/** Below this score a metric is flagged (issue 42's "no ratio worse than 0.97×"). */
export const WORSE_BELOW = 0.97;

export function printComparison(title: string, comparisons: readonly MetricComparison[]): void {
  printTable(
    title,
    ['metric', 'unit', 'before', 'after', 'after÷before', 'better', 'score', 'in-run ratio before → after'],
    comparisons.map((c) => [
      c.metric,
      c.unit,
      formatFigure(c.before),
      formatFigure(c.after),
      c.change === undefined ? '' : `${formatFigure(c.change)}×`,
      { higher: '↑', lower: '↓', unknown: '' }[directionOf(c.unit)],
      c.score === undefined ? '' : `${formatFigure(c.score)}${c.score < WORSE_BELOW ? ' worse' : ''}`,
      c.ratioBefore === undefined && c.ratioAfter === undefined ? '' : `${formatFigure(c.ratioBefore)}× → ${formatFigure(c.ratioAfter)}×`,
    ]),
  );
}
