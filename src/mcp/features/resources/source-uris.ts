/**
 * The URIs of sources as MCP resources (docs/sources.md): `hyphae://sources/{source_id}` with
 * optional `offset` and `limit` (Unicode code points, as REST's slices) and `project` (default:
 * the caller's current project). Kept apart from resource-uris.ts: sources are read, never subscribed.
 */
export const SOURCE_URI_TEMPLATE = 'hyphae://sources/{source_id}{?offset,limit,project}';
const SOURCE_URI_PREFIX = 'hyphae://sources/';
const SOURCE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
const COUNT = /^\d{1,15}$/;
const MAX_URI_CHARS = 1024;

export interface SourceResourceUri {
  readonly sourceId: string;
  readonly project?: string;
  readonly offset?: number;
  readonly limit?: number;
}

/** The URI of a source in its project: its first slice, or the whole source when it fits one. */
export function sourceUri(sourceId: string, project: string): string {
  return `${SOURCE_URI_PREFIX}${sourceId}?project=${encodeURIComponent(project)}`;
}

/** The URI of characters [offset, offset + limit) of a source; project named so the link outlives a change of current project. */
export function sourceSliceUri(sourceId: string, project: string, offset: number, limit: number): string {
  return `${SOURCE_URI_PREFIX}${sourceId}?offset=${offset}&limit=${limit}&project=${encodeURIComponent(project)}`;
}

function decoded(value: string): string | null {
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}

/** Null for a URI that names no source (the caller answers "resource not found"); ranges are the facade's to check. */
export function parseSourceUri(uri: string): SourceResourceUri | null {
  if (uri.length > MAX_URI_CHARS || !uri.startsWith(SOURCE_URI_PREFIX)) return null;
  const rest = uri.slice(SOURCE_URI_PREFIX.length);
  const mark = rest.indexOf('?');
  const sourceId = mark === -1 ? rest : rest.slice(0, mark);
  if (!SOURCE_ID.test(sourceId)) return null;
  if (mark === -1) return { sourceId };
  const fields: { project?: string; offset?: number; limit?: number } = {};
  for (const pair of rest.slice(mark + 1).split('&')) {
    const equals = pair.indexOf('=');
    if (equals === -1) return null;
    const name = pair.slice(0, equals);
    const value = pair.slice(equals + 1);
    if ((name !== 'project' && name !== 'offset' && name !== 'limit') || fields[name] !== undefined) return null;
    if (name === 'project') {
      const project = decoded(value);
      if (project === null || project === '') return null;
      fields.project = project;
    } else {
      if (!COUNT.test(value)) return null;
      fields[name] = Number(value);
    }
  }
  return { sourceId, ...fields };
}
