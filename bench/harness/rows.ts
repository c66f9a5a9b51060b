/** The row most sections print: a figure beside its same-run baseline and their ratio, all to three decimals. */
import { round3 } from './measure.js';
import type { BenchRow } from './section.js';

export function ratioRow(metric: string, unit: string, value: number, baseline: number, extra: Partial<BenchRow> = {}): BenchRow {
  return { metric, value: round3(value), unit, baseline: round3(baseline), ratio: round3(value / baseline), ...extra };
}
