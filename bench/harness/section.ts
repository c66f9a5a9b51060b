/** One row of `npm run bench`: a figure, and where it matters, its ratio to a same-run baseline. */
export interface BenchRow {
  readonly metric: string;
  readonly value: number;
  readonly unit: string;
  readonly baseline?: number;
  readonly ratio?: number;
  readonly target?: string;
  readonly note?: string;
}

export interface BenchSection {
  readonly name: string;
  readonly rows: readonly BenchRow[];
}

export function percentile(sortedOrNot: readonly number[], p: number): number {
  if (sortedOrNot.length === 0) return Number.NaN;
  const sorted = [...sortedOrNot].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}
