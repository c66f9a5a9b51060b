/** How sources read on the wire: a served row or a pending ingestion as a summary, and the list cursor. */
import type { SourceSummary } from '../../core/source-schemas.js';
import { InvalidArgumentError } from '../../core/errors.js';
import { isStorableTimestamp } from '../../core/text-rules.js';
import type { IngestionRow, SourceRow } from '../../store/source-repository.js';

export function summaryOf(row: SourceRow): SourceSummary {
  return {
    source_id: row.source_id,
    project: row.project,
    kind: row.kind,
    format: row.format,
    title: row.title,
    metadata: row.metadata,
    observation_date: row.observation_date,
    total_chars: row.total_chars,
    total_bytes: row.total_bytes,
    chunk_count: row.chunk_count,
    created_by: row.created_by,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A source whose first version is still being ingested: what it will be, with no chunks yet. */
export function pendingSummary(row: IngestionRow): SourceSummary {
  return summaryOf({ ...row, chunk_count: 0 });
}

export function encodeSourceCursor(createdAt: string, sourceId: string): string {
  return Buffer.from(JSON.stringify([createdAt, sourceId]), 'utf8').toString('base64url');
}

export function decodeSourceCursor(cursor: string | undefined): { createdAt: string; sourceId: string } | null {
  if (cursor === undefined) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && /^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/.test(value[0]) && isStorableTimestamp(value[0]) && typeof value[1] === 'string') {
      return { createdAt: value[0], sourceId: value[1] };
    }
  } catch {
    // falls through to the typed error below
  }
  throw new InvalidArgumentError('cursor is not a cursor this server issued', [{ path: 'cursor', message: 'malformed cursor' }]);
}
