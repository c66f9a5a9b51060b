/**
 * What surrounds a cell as an MCP resource (docs/relations.md):
 * `hyphae://cells/{node_id}/subgraph` with optional `depth` and `max_members`, read through the
 * facade's cellSubgraph — a cell the caller cannot read is "resource not found" like any other.
 */
import type { Subgraph } from '../../../core/relation-schemas.js';
import { supportsResourceLinks, type ProtocolVersion } from '../../protocol/protocol-version.js';
import { quotedText } from '../quoted-text.js';

export const SUBGRAPH_URI_TEMPLATE = 'hyphae://cells/{node_id}/subgraph{?depth,max_members,as_of}';
const SUBGRAPH_URI = /^hyphae:\/\/cells\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\/subgraph(?:\?(.*))?$/i;
const COUNT = /^\d{1,6}$/;
const MAX_URI_CHARS = 256;

export interface SubgraphResourceUri {
  readonly nodeId: string;
  readonly depth?: number;
  readonly max_members?: number;
  /** RFC 3339 (percent-encoded in the URI); the facade checks it. */
  readonly as_of?: string;
}

/** Null for a URI that names no subgraph (an unknown or repeated parameter included); ranges are the facade's to check. */
export function parseSubgraphUri(uri: string): SubgraphResourceUri | null {
  if (uri.length > MAX_URI_CHARS) return null;
  const match = SUBGRAPH_URI.exec(uri);
  if (match === null) return null;
  const nodeId = (match[1] as string).toLowerCase();
  const fields: { depth?: number; max_members?: number; as_of?: string } = {};
  if (match[2] === undefined) return { nodeId };
  for (const pair of match[2].split('&')) {
    const [name, value, extra] = pair.split('=');
    if (extra !== undefined || value === undefined) return null;
    if (name === 'as_of' && fields.as_of === undefined) {
      const instant = decodedInstant(value);
      if (instant === null) return null;
      fields.as_of = instant;
      continue;
    }
    if ((name !== 'depth' && name !== 'max_members') || fields[name] !== undefined || !COUNT.test(value)) return null;
    fields[name] = Number(value);
  }
  return { nodeId, ...fields };
}

/** A percent-encoded instant, or null when it does not decode. */
function decodedInstant(value: string): string | null {
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}

export function subgraphTemplate(version: ProtocolVersion): Record<string, unknown> {
  return {
    uriTemplate: SUBGRAPH_URI_TEMPLATE,
    name: 'cell-subgraph',
    ...(supportsResourceLinks(version) ? { title: 'What surrounds a memory cell' } : {}),
    description:
      'Everything reachable from one cell over its relations and the edges the server knows (supersedes, in_scene, in_session, ' +
      'chunk_of, next_chunk, same_thread, corroborated_by, promoted_from), breadth-first: depth (1–10, default 2) and max_members ' +
      '(1–1000, default 200); as_of (RFC 3339, percent-encoded) walks the declared relations that held then. Gives a markdown outline and, as JSON, the members (id, kind, depth, discovered_relation, ' +
      'discovered_via), the relations among them {from, to, type} and truncated.',
    mimeType: 'application/json',
  };
}

/** A markdown outline (one line a member, its cell's URI) and the subgraph as JSON, ids only. */
export function subgraphContents(graph: Subgraph, uri: string): Record<string, unknown>[] {
  const lines = graph.members.map((m) => {
    const how = m.discovered_relation === null ? 'start' : `${m.discovered_relation} of ${m.discovered_via ?? ''}`;
    const name = m.kind === 'cell' ? `hyphae://cells/${m.id}` : `${m.kind} ${m.id}`;
    // The member's text quoted: another agent's words cannot start a line and forge a member.
    return `${'  '.repeat(m.depth)}- ${name} (${how})${m.preview === null ? '' : `: ${quotedText(m.preview)}`}`;
  });
  if (graph.truncated) lines.push('', 'truncated: raise max_members to see more');
  return [
    { uri, mimeType: 'text/markdown', text: lines.join('\n') },
    { uri, mimeType: 'application/json', text: JSON.stringify(graph) },
  ];
}
