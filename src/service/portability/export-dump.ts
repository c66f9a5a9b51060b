/**
 * `hyphae export` and `GET /v1/admin/export`: the database (or one tenant, or one project of it) as
 * export-format lines (docs/export-format.md), read a page at a time so memory stays flat however
 * many cells there are. Each record type is read in key order, so two exports of the same data are
 * the same lines. Pages are read outside a transaction: rows written during an export may be in it
 * or not (for a frozen copy, export while nothing writes, or use a physical backup).
 */
import { EXPORT_FORMAT_NAME, EXPORT_FORMAT_VERSION, EXPORT_RECORD_TYPES, emptyRecordCounts, type ExportHeader, type ExportRecordType } from '../../core/export-format.js';
import type { Queryable } from '../../store/db.js';
import { exportPage, exportPosition, scopeHoldsRecords, type ExportPosition, type ExportRow, type ExportScope } from '../../store/export-repository.js';
import type { EmbeddingIdentity } from '../../store/migrator.js';
import { sourceRecordLines } from './source-text-parts.js';

export interface ExportDumpOptions {
  readonly scope: ExportScope;
  /** Cell and beacon lines carry their vectors. */
  readonly withVectors: boolean;
  /** The embedder the database's vectors come from (recorded in the header). */
  readonly identity: EmbeddingIdentity;
  readonly hyphaeVersion: string;
  readonly now: Date;
  /** Rows per query (default 1000). */
  readonly pageSize?: number;
  /** Called after each page with the records written so far. */
  readonly onProgress?: (records: number) => void;
}

const DEFAULT_PAGE_SIZE = 1000;
/** Sources carry their whole text: fewer per page keeps memory flat. */
const SOURCE_PAGE_SIZE = 16;

/** The export's lines, each ending in a newline: header, records, end. */
export async function* exportDumpLines(db: Queryable, options: ExportDumpOptions): AsyncGenerator<string> {
  const header: ExportHeader = {
    type: 'header',
    format: EXPORT_FORMAT_NAME,
    version: EXPORT_FORMAT_VERSION,
    hyphae_version: options.hyphaeVersion,
    exported_at: options.now.toISOString(),
    scope: { tenant: options.scope.tenantId, project: options.scope.project },
    embedder: { model_id: options.identity.modelId, dimension: options.identity.dimension },
    vectors: options.withVectors,
  };
  yield `${JSON.stringify(header)}\n`;
  const counts = emptyRecordCounts();
  let records = 0;
  for (const type of EXPORT_RECORD_TYPES) {
    if (!scopeHoldsRecords(type, options.scope)) continue;
    let after: ExportPosition | null = null;
    for (;;) {
      const rows = await exportPage(db, type, options.scope, { withVectors: options.withVectors, after, limit: pageSize(type, options.pageSize) });
      if (rows.length === 0) break;
      yield rows.map((row) => recordLine(type, row)).join('');
      counts[type] += rows.length;
      records += rows.length;
      options.onProgress?.(records);
      after = exportPosition(type, rows[rows.length - 1] as ExportRow);
    }
  }
  yield `${JSON.stringify({ type: 'end', counts })}\n`;
}

function pageSize(type: ExportRecordType, asked: number | undefined): number {
  const size = asked ?? DEFAULT_PAGE_SIZE;
  return type === 'source' ? Math.min(size, SOURCE_PAGE_SIZE) : size;
}

/** One record's line (a long source's text continues on lines of its own); a vector is spliced in as pgvector printed it (already a JSON array), never parsed. */
function recordLine(type: ExportRecordType, row: ExportRow): string {
  if (type === 'source') return sourceRecordLines(row as ExportRow & { text: string });
  const { embedding, ...fields } = row;
  const json = JSON.stringify({ type, ...fields });
  return embedding === undefined ? `${json}\n` : `${json.slice(0, -1)},"embedding":${embedding}}\n`;
}
