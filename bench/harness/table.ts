/** The tables `npm run bench` prints: columns padded to their widest cell, under a `## title` line. */
import type { BenchSection } from './section.js';

/** A figure as printed: three significant digits, whole numbers from 1000 up, blank when absent. */
export function formatFigure(value: number | undefined, digits = 3): string {
  if (value === undefined || Number.isNaN(value)) return '';
  if (Math.abs(value) >= 1000) return value.toFixed(0);
  return Number(value.toPrecision(digits)).toString();
}

export function printTable(title: string, header: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  console.log(`\n## ${title}`);
  console.log(line(header));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const r of rows) console.log(line(r));
}

export function printSection(section: BenchSection): void {
  printTable(
    section.name,
    ['metric', 'value', 'unit', 'baseline', 'ratio', 'target', 'note'],
    section.rows.map((row) => [
      row.metric,
      formatFigure(row.value),
      row.unit,
      formatFigure(row.baseline),
      row.ratio === undefined ? '' : `${formatFigure(row.ratio)}×`,
      row.target ?? '',
      row.note ?? '',
    ]),
  );
}
