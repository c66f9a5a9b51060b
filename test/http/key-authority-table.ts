/**
 * The table of docs/security.md's "Who may administer which keys", read from the doc itself so the
 * escalation test runs what the doc promises: one row per operation and target, one answer per
 * caller column.
 */
import { readFile } from 'node:fs/promises';

export const KEY_AUTHORITY_HEADING = '## Who may administer which keys';

export interface KeyAuthorityRow {
  readonly operation: string;
  readonly target: string;
  /** Caller column header → the answer in that column. */
  readonly answers: ReadonlyMap<string, string>;
}

export interface KeyAuthorityTable {
  readonly callerColumns: readonly string[];
  readonly rows: readonly KeyAuthorityRow[];
}

export async function readKeyAuthorityTable(docPath: string): Promise<KeyAuthorityTable> {
  return parseKeyAuthorityTable(await readFile(docPath, 'utf8'));
}

/** The first table under the heading; throws when there is none or a row is ragged. */
export function parseKeyAuthorityTable(markdown: string): KeyAuthorityTable {
  const lines = markdown.split('\n');
  const start = lines.indexOf(KEY_AUTHORITY_HEADING);
  if (start < 0) throw new Error(`no "${KEY_AUTHORITY_HEADING}" section`);
  const end = lines.findIndex((line, i) => i > start && line.startsWith('## '));
  const section = lines.slice(start + 1, end < 0 ? undefined : end);
  const first = section.findIndex((line) => line.startsWith('|'));
  if (first < 0) throw new Error('the section has no table');
  const tableLines: string[] = [];
  for (const line of section.slice(first)) {
    if (!line.startsWith('|')) break;
    tableLines.push(line);
  }
  const [header, separator, ...body] = tableLines.map(cellsOf);
  if (header === undefined || separator === undefined || !separator.every((cell) => /^:?-+:?$/.test(cell))) throw new Error('malformed table head');
  const [operationHead, targetHead, ...callerColumns] = header;
  if (operationHead !== 'operation' || targetHead !== 'target' || callerColumns.length === 0) throw new Error(`unexpected columns: ${header.join(' | ')}`);
  const rows = body.map((cells, i): KeyAuthorityRow => {
    if (cells.length !== header.length) throw new Error(`row ${i + 1} has ${cells.length} cells, not ${header.length}`);
    const [operation = '', target = '', ...answers] = cells;
    return { operation, target, answers: new Map(callerColumns.map((column, j) => [column, answers[j] ?? ''])) };
  });
  return { callerColumns, rows };
}

function cellsOf(line: string): string[] {
  return line
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((cell) => cell.trim());
}
