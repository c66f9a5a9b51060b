/** A page of one source's chunks (GET /v1/sources/{id}/chunks): the served version's, or the pending ingestion's with how far each is. */
import { InvalidArgumentError, NotFoundError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import { sourceChunksInputSchema, type SourceChunksPage } from '../../core/source-schemas.js';
import type { Db } from '../../store/db.js';
import { pendingChunks, servedChunks } from '../../store/source-chunk-repository.js';
import { findIngestion, findSource } from '../../store/source-repository.js';
import { parseInput } from '../facade/input-validation.js';
import type { SourceKeyOf } from './source-ingest.js';

export async function sourceChunks(db: Db, keyOf: SourceKeyOf, principal: Principal, raw: unknown): Promise<SourceChunksPage> {
  const input = parseInput(sourceChunksInputSchema, raw);
  const key = await keyOf(principal, input.source_id, input.project);
  const after = decodeChunkCursor(input.cursor);
  const [served, pending] = await Promise.all([findSource(db, key), findIngestion(db, key)]);
  const version = input.version ?? (served === null ? 'pending' : 'served');
  const rows = version === 'served' ? (served === null ? null : await servedChunks(db, key, after, input.limit + 1)) : pending === null ? null : await pendingChunks(db, key, after, input.limit + 1);
  if (rows === null) throw new NotFoundError('source', key.sourceId);
  const kept = rows.slice(0, input.limit);
  const last = kept.at(-1);
  return {
    source_id: key.sourceId,
    project: key.project,
    version,
    state: version === 'served' ? 'ready' : (pending?.state ?? 'failed'),
    chunks_total: version === 'served' ? (served?.chunk_count ?? 0) : (pending?.chunks_total ?? 0),
    chunks: kept.map((row) => ({
      chunk_index: row.chunk_index,
      node_id: row.node_id,
      char_start: row.char_start,
      char_end: row.char_end,
      heading_path: row.heading_path,
      status: row.node_id !== null ? 'ready' : row.embedded ? 'embedded' : 'waiting',
    })),
    next_cursor: rows.length > input.limit && last !== undefined ? Buffer.from(`chunk:${last.chunk_index}`, 'utf8').toString('base64url') : null,
  };
}

/** The chunk index a cursor continues after (-1: from the first). */
function decodeChunkCursor(cursor: string | undefined): number {
  if (cursor === undefined) return -1;
  const match = /^chunk:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (match === null) throw new InvalidArgumentError('cursor is not a cursor this server issued', [{ path: 'cursor', message: 'malformed cursor' }]);
  return Number(match[1]);
}
