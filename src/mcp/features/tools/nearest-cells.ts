/** recall and query: the request_id, ids, distances and scores in structuredContent, a link per cell (from the hydrated hits); a chunk's link is its slice of the source. */
import type { RecallResult } from '../../../core/entities.js';
import type { CellLink } from '../resources/cell-presentation.js';
import { linkToNode } from '../resources/cell-presentation.js';
import { linkToChunk } from '../resources/source-presentation.js';
import type { ToolOutcome } from './tool-definition.js';

type ChunkOfSource = NonNullable<RecallResult['results'][number]['source']>;

export function nearestCells(found: RecallResult): ToolOutcome<{ request_id: string; results: { node_id: string; distance: number; score: number; source?: ChunkOfSource; related_chunks?: string[]; relations?: { from: string; to: string; type: string }[] }[] }> {
  const links: CellLink[] = found.results.flatMap((hit) => {
    if (hit.node === undefined) return [];
    return [hit.source === undefined ? linkToNode(hit.node) : linkToChunk(hit.node, hit.source)];
  });
  const results = found.results.map((hit) => ({ node_id: hit.node_id, distance: hit.distance, score: hit.score, ...(hit.source === undefined ? {} : { source: hit.source }), ...(hit.related_chunks === undefined ? {} : { related_chunks: [...hit.related_chunks] }), ...(hit.relations === undefined ? {} : { relations: hit.relations.map((r) => ({ ...r })) }) }));
  return { structured: { request_id: found.request_id, results }, links };
}
