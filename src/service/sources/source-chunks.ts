/** A page of one source's chunks (GET /v1/sources/{id}/chunks): the served version's, or the pending ingestion's with how far each is. */
import { InvalidArgumentError, NotFoundError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import { SOURCE_STATES, sourceChunksInputSchema, type SourceChunksPage } from '../../core/source-schemas.js';
import type { Db } from '../../store/db.js';
import { pendingChunks, servedChunks } from '../../store/source-chunk-repository.js';
import { findSource } from '../../store/source-repository.js';
import { parseInput } from '../facade/input-validation.js';
import type { SourceKeyOf } from './source-ingest.js';

export async function sourceChunks(db: Db, keyOf: SourceKeyOf, principal: Principal, raw: unknown): Promise<SourceChunksPage> {
  const input = parseInput(sourceChunksInputSchema, raw);
  const key = await keyOf(principal, input.source_id, input.project);
  const after = decodeChunkCursor(input.cursor);
  const version = input.version ?? ((await findSource(db, key)) === null ? 'pending' : 'served');
  // One statement per page: the version's count and state agree with its chunks even while a replacement swaps in.
  const page = version === 'served' ? await servedChunks(db, key, after, input.limit + 1) : await pendingChunks(db, key, after, input.limit + 1);
  if (page === null) throw new NotFoundError('source', key.sourceId);
  const kept = page.rows.slice(0, input.limit);
  const last = kept.at(-1);
  return {
    source_id: key.sourceId,
    project: key.project,
    version,
    state: SOURCE_STATES.find((state) => state === page.state) ?? 'failed',
    chunks_total: page.total,
    chunks: kept.map((row) => ({
      chunk_index: row.chunk_index,
      node_id: row.node_id,
      char_start: row.char_start,
      char_end: row.char_end,
      heading_path: row.heading_path,
      status: row.node_id !== null ? 'ready' : row.embedded ? 'embedded' : 'waiting',
    })),
    next_cursor: page.rows.length > input.limit && last !== undefined ? Buffer.from(`chunk:${last.chunk_index}`, 'utf8').toString('base64url') : null,
  };
}

/** The chunk index a cursor continues after (-1: from the first). */
function decodeChunkCursor(cursor: string | undefined): number {
  if (cursor === undefined) return -1;
  const match = /^chunk:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (match === null) throw new InvalidArgumentError('cursor is not a cursor this server issued', [{ path: 'cursor', message: 'malformed cursor' }]);
  return Number(match[1]);
}
