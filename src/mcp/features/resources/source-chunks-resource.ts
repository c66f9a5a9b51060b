/**
 * A source's chunks as an MCP resource (docs/sources.md, "Reading the chunks"):
 * `hyphae://sources/{source_id}/chunks` with optional `version`, `limit`, `cursor` and `project`,
 * read through the facade's sourceChunks — the page GET /v1/sources/{id}/chunks answers.
 */
import type { SourceChunksPage } from '../../../core/source-schemas.js';
import { supportsResourceLinks, type ProtocolVersion } from '../../protocol/protocol-version.js';
import { quotedText } from '../quoted-text.js';
import { cellUri } from './resource-uris.js';
import { sourceSliceUri } from './source-uris.js';

export const SOURCE_CHUNKS_URI_TEMPLATE = 'hyphae://sources/{source_id}/chunks{?version,limit,cursor,project}';
const SOURCE_CHUNKS_URI = /^hyphae:\/\/sources\/([A-Za-z0-9][A-Za-z0-9._:-]{0,127})\/chunks(?:\?(.*))?$/;
const LIMIT = /^\d{1,6}$/;
// A cursor as the facade issues it (base64url); the facade decides whether it is one of its own.
const CURSOR = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_URI_CHARS = 1024;

export interface SourceChunksResourceUri {
  readonly sourceId: string;
  readonly version?: ChunkVersion;
  readonly limit?: number;
  readonly cursor?: string;
  readonly project?: string;
}

type ChunkVersion = 'served' | 'pending';
type Fields = { version?: ChunkVersion; limit?: number; cursor?: string; project?: string };

/** One query parameter into `fields`; false when it is unknown, repeated or malformed. */
function take(fields: Fields, name: string, value: string): boolean {
  if ((name !== 'version' && name !== 'limit' && name !== 'cursor' && name !== 'project') || fields[name] !== undefined) return false;
  if (name === 'limit') {
    if (!LIMIT.test(value)) return false;
    fields.limit = Number(value);
    return true;
  }
  if (name === 'cursor') {
    if (!CURSOR.test(value)) return false;
    fields.cursor = value;
    return true;
  }
  if (name === 'version') {
    // Two versions exist; any other names no resource, as an unknown parameter does.
    if (value !== 'served' && value !== 'pending') return false;
    fields.version = value;
    return true;
  }
  let decoded: string;
  try {
    decoded = decodeURIComponent(value);
  } catch {
    return false;
  }
  if (decoded === '') return false;
  fields.project = decoded;
  return true;
}

/** Null for a URI that names no source's chunks (an unknown or repeated parameter included); ranges are the facade's to check. */
export function parseSourceChunksUri(uri: string): SourceChunksResourceUri | null {
  if (uri.length > MAX_URI_CHARS) return null;
  const match = SOURCE_CHUNKS_URI.exec(uri);
  if (match === null) return null;
  const sourceId = match[1] as string;
  if (match[2] === undefined) return { sourceId };
  const fields: Fields = {};
  for (const pair of match[2].split('&')) {
    const equals = pair.indexOf('=');
    if (equals === -1 || !take(fields, pair.slice(0, equals), pair.slice(equals + 1))) return null;
  }
  return { sourceId, ...fields };
}

/** The URI of the page after `cursor`, with the same version, project and limit (the default when the caller named none). */
export function sourceChunksUri(sourceId: string, project: string, version: string, limit: number | undefined, cursor: string): string {
  return `hyphae://sources/${sourceId}/chunks?version=${version}${limit === undefined ? '' : `&limit=${limit}`}&cursor=${cursor}&project=${encodeURIComponent(project)}`;
}

export function sourceChunksTemplate(version: ProtocolVersion): Record<string, unknown> {
  return {
    uriTemplate: SOURCE_CHUNKS_URI_TEMPLATE,
    name: 'source-chunks',
    ...(supportsResourceLinks(version) ? { title: 'The chunks of a source' } : {}),
    description:
      'A page of one source’s chunks in source order (docs/sources.md): version served (the chunk cells recall finds; the default ' +
      'when there is one) or pending (the ingestion under way), limit (1–200, default 50), cursor from the previous page, project ' +
      '(default your current one). Gives a markdown outline — each chunk’s index, range, heading path, status, its slice and its ' +
      'cell — and the page as JSON (chunks_total, state, next_cursor, next_uri).',
    mimeType: 'text/markdown',
  };
}

/** A markdown outline (one line a chunk, with its slice's and its cell's URIs) and the page as JSON with the next page's URI. */
export function sourceChunksContents(page: SourceChunksPage, uri: string, limit: number | undefined): Record<string, unknown>[] {
  const nextUri = page.next_cursor === null ? null : sourceChunksUri(page.source_id, page.project, page.version, limit, page.next_cursor);
  const lines = [`Source ${page.source_id} (${page.version} version, ${page.state}): ${page.chunks_total} chunks`, ''];
  for (const chunk of page.chunks) {
    const cell = chunk.node_id === null ? '' : `, cell ${cellUri(chunk.node_id)}`;
    // The heading path is the author's text: quoted (line and paragraph separators too), so a line of it cannot pass for another chunk.
    const heading = chunk.heading_path === '' ? '' : ` ${quotedText(chunk.heading_path)}`;
    lines.push(`- #${chunk.chunk_index} [${chunk.char_start}, ${chunk.char_end})${heading} ${chunk.status}: ${sourceSliceUri(page.source_id, page.project, chunk.char_start, chunk.char_end - chunk.char_start)}${cell}`);
  }
  if (nextUri !== null) lines.push('', `More chunks follow: read ${nextUri}`);
  return [
    { uri, mimeType: 'text/markdown', text: lines.join('\n') },
    { uri, mimeType: 'application/json', text: JSON.stringify({ ...page, next_uri: nextUri }) },
  ];
}
