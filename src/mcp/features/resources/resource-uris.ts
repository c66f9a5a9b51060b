/**
 * The URIs of Hyphae's MCP resources: one cell (`hyphae://cells/{node_id}`) and the caller's
 * inbox (`hyphae://inbox`, optionally `?after_seq=N`). Anything else is not a resource of ours.
 */
export const CELL_URI_TEMPLATE = 'hyphae://cells/{node_id}';
export const INBOX_URI = 'hyphae://inbox';
const CELL_URI_PREFIX = 'hyphae://cells/';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_URI_CHARS = 256;

export type HyphaeResourceUri =
  | { readonly kind: 'cell'; readonly nodeId: string }
  | { readonly kind: 'inbox'; readonly afterSeq?: number };

export function cellUri(nodeId: string): string {
  return `${CELL_URI_PREFIX}${nodeId}`;
}

/** Null for a URI that names none of our resources (the caller answers "resource not found"). */
export function parseResourceUri(uri: string): HyphaeResourceUri | null {
  if (uri.length > MAX_URI_CHARS) return null;
  if (uri.startsWith(CELL_URI_PREFIX)) {
    const id = uri.slice(CELL_URI_PREFIX.length);
    return UUID.test(id) ? { kind: 'cell', nodeId: id.toLowerCase() } : null;
  }
  if (uri === INBOX_URI) return { kind: 'inbox' };
  const query = /^hyphae:\/\/inbox\?after_seq=(\d{1,15})$/.exec(uri);
  return query === null ? null : { kind: 'inbox', afterSeq: Number(query[1]) };
}
