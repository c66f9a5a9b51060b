/**
 * How a source looks as an MCP resource: the slice's text exactly as stored (so slices concatenate
 * back to the source), its fields as JSON, and — when more follows — a line naming the next
 * slice's URI; and the resource_link of a recalled chunk, pointing at the chunk's own slice.
 */
import type { MemoryNode } from '../../../core/entities.js';
import type { SourceSlice } from '../../../core/source-schemas.js';
import type { CellLink } from './cell-presentation.js';
import { clip, oneLine } from './short-text.js';
import { sourceSliceUri } from './source-uris.js';

/** A slice is raw text: a cut through markdown is not well-formed markdown. */
export const SOURCE_MIME_TYPE = 'text/plain';
const TITLE_CHARS = 80;
const DESCRIPTION_CHARS = 200;

export interface ChunkOfSource {
  readonly source_id: string;
  readonly chunk_index: number;
  readonly char_start: number;
  readonly char_end: number;
}

/** resources/read of a source: the text, the fields as JSON, then (when more follows) where to read on. */
export function sourceContents(slice: SourceSlice, uri: string, limit: number): Record<string, unknown>[] {
  const { text, ...fields } = slice;
  const nextUri = slice.next_offset === null ? null : sourceSliceUri(slice.source_id, slice.project, slice.next_offset, limit);
  const contents: Record<string, unknown>[] = [
    { uri, mimeType: SOURCE_MIME_TYPE, text },
    { uri, mimeType: 'application/json', text: JSON.stringify({ ...fields, next_uri: nextUri }) },
  ];
  if (nextUri !== null) {
    contents.push({
      uri,
      mimeType: SOURCE_MIME_TYPE,
      text: `This is characters ${slice.offset}–${String(slice.next_offset)} of ${slice.total_chars} of source ${slice.source_id}; read the next slice at ${nextUri}`,
    });
  }
  return contents;
}

/** A chunk hit's link: its slice of the source, whose text is exactly the chunk's text after its heading path. */
export function linkToChunk(node: MemoryNode, chunk: ChunkOfSource): CellLink {
  const text = oneLine(node.content);
  return {
    uri: sourceSliceUri(chunk.source_id, node.project, chunk.char_start, chunk.char_end - chunk.char_start),
    name: `${chunk.source_id}#${chunk.chunk_index}`,
    title: `Source ${chunk.source_id}, chunk ${chunk.chunk_index}: ${clip(text, TITLE_CHARS)}`,
    description: clip(text, DESCRIPTION_CHARS),
    salience: node.salience,
    lastModified: node.updated_at,
    mimeType: SOURCE_MIME_TYPE,
  };
}
