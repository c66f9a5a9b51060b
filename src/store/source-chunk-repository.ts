/**
 * The chunks of sources as cells and drafts: where each lies in its source (recall names it on its
 * hits), its neighbours (num_related_chunks), and a page of one source's chunks with their heading
 * paths and how far each is from searchable (GET /v1/sources/{id}/chunks).
 */
import { liveRow } from './cell-conditions.js';
import type { Queryable } from './db.js';
import type { SourceKey } from './source-repository.js';

/** Where a chunk cell lies in its source. */
export interface ChunkOfSource {
  readonly source_id: string;
  readonly chunk_index: number;
  readonly char_start: number;
  readonly char_end: number;
}

/** Of these cells, the chunks of sources, with their source and range (a recall names them on its hits). */
export async function chunksOfSources(q: Queryable, tenantId: string, nodeIds: readonly string[]): Promise<Map<string, ChunkOfSource>> {
  if (nodeIds.length === 0) return new Map();
  const result = await q.query<ChunkOfSource & { node_id: string }>(
    `SELECT node_id::text AS node_id, source_id, chunk_index, char_start, char_end FROM cells
     WHERE tenant_id = $1 AND node_id = ANY($2::uuid[]) AND source_id IS NOT NULL AND ${liveRow()}`,
    [tenantId, nodeIds],
  );
  return new Map(result.rows.map(({ node_id, ...chunk }) => [node_id, chunk]));
}

/** The chunks of the same source within `span` positions of each chunk (itself excluded), in source order, keyed by the chunk's id. */
export async function adjacentChunks(q: Queryable, tenantId: string, nodeIds: readonly string[], span: number): Promise<Map<string, string[]>> {
  if (nodeIds.length === 0 || span <= 0) return new Map();
  const result = await q.query<{ node_id: string; related: string[] }>(
    `SELECT c.node_id::text AS node_id,
       ARRAY(SELECT n.node_id::text FROM cells n
             WHERE n.tenant_id = c.tenant_id AND n.project = c.project AND n.source_id = c.source_id
               AND n.chunk_index BETWEEN c.chunk_index - $3 AND c.chunk_index + $3 AND n.node_id <> c.node_id AND ${liveRow('n')}
             ORDER BY n.chunk_index) AS related
     FROM cells c WHERE c.tenant_id = $1 AND c.node_id = ANY($2::uuid[]) AND c.source_id IS NOT NULL AND ${liveRow('c')}`,
    [tenantId, nodeIds, span],
  );
  return new Map(result.rows.map((row) => [row.node_id, row.related]));
}

/** One chunk of a page: a served chunk cell (node_id set) or a pending ingestion's draft (node_id null). */
export interface SourceChunkRow {
  readonly chunk_index: number;
  readonly node_id: string | null;
  readonly char_start: number;
  readonly char_end: number;
  /** The heading path as embedded before the chunk's text ('' when it has none). */
  readonly heading_path: string;
  readonly embedded: boolean;
}

/** A page of one version's chunks, read in one statement with the version's count and state: they agree. */
export interface SourceChunkPage {
  readonly total: number;
  /** `ready` for the served version; the ingestion's state for a pending one. */
  readonly state: string;
  readonly rows: SourceChunkRow[];
}

// The content is the heading path, a blank line, then the source's characters [char_start, char_end) — or those characters alone.
const headingPath = (t: string): string => `left(${t}.content, greatest(char_length(${t}.content) - (${t}.char_end - ${t}.char_start) - 2, 0))`;

type PageRow = { total: number; state: string } & { [K in keyof SourceChunkRow]: SourceChunkRow[K] | null };

function pageOf(rows: readonly PageRow[]): SourceChunkPage | null {
  const first = rows[0];
  if (first === undefined) return null;
  return {
    total: first.total,
    state: first.state,
    rows: rows
      .filter((row) => row.chunk_index !== null)
      .map((row) => ({
        chunk_index: row.chunk_index as number,
        node_id: row.node_id,
        char_start: row.char_start as number,
        char_end: row.char_end as number,
        heading_path: row.heading_path as string,
        embedded: row.embedded === true,
      })),
  };
}

/** The served version's chunk cells after `afterIndex`, in source order; null when no version is served. */
export async function servedChunks(q: Queryable, key: SourceKey, afterIndex: number, limit: number): Promise<SourceChunkPage | null> {
  const result = await q.query<PageRow>(
    `SELECT s.chunk_count AS total, 'ready' AS state, c.* FROM sources s
     LEFT JOIN LATERAL (
       SELECT c.chunk_index, c.node_id::text AS node_id, c.char_start, c.char_end, ${headingPath('c')} AS heading_path, true AS embedded
       FROM cells c WHERE c.tenant_id = s.tenant_id AND c.project = s.project AND c.source_id = s.source_id AND c.chunk_index > $4 AND ${liveRow('c')}
       ORDER BY c.chunk_index LIMIT $5) c ON true
     WHERE s.tenant_id = $1 AND s.project = $2 AND s.source_id = $3 AND ${liveRow('s')}
     ORDER BY c.chunk_index`,
    [key.tenantId, key.project, key.sourceId, afterIndex, limit],
  );
  return pageOf(result.rows);
}

/** The pending ingestion's drafts after `afterIndex`, in source order (none once it failed: its drafts are dropped); null when none is pending. */
export async function pendingChunks(q: Queryable, key: SourceKey, afterIndex: number, limit: number): Promise<SourceChunkPage | null> {
  const result = await q.query<PageRow>(
    `SELECT i.chunks_total AS total, i.state, d.* FROM source_ingestions i
     LEFT JOIN LATERAL (
       SELECT d.chunk_index, NULL::text AS node_id, d.char_start, d.char_end, ${headingPath('d')} AS heading_path, d.embedding IS NOT NULL AS embedded
       FROM source_chunk_drafts d WHERE d.ingestion_id = i.ingestion_id AND d.chunk_index > $4
       ORDER BY d.chunk_index LIMIT $5) d ON true
     WHERE i.tenant_id = $1 AND i.project = $2 AND i.source_id = $3 AND ${liveRow('i')}
     ORDER BY d.chunk_index`,
    [key.tenantId, key.project, key.sourceId, afterIndex, limit],
  );
  return pageOf(result.rows);
}
