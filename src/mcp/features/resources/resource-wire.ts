/**
 * Resource descriptors and resource_link blocks as the negotiated revision defines them: before
 * 2025-06-18 there is no `resource_link`, no `title` and no `lastModified`.
 */
import type { ProtocolVersion } from '../../protocol/protocol-version.js';
import { supportsResourceLinks } from '../../protocol/protocol-version.js';
import type { CellLink } from './cell-presentation.js';
import { CELL_MIME_TYPE } from './cell-presentation.js';
import { CELL_URI_TEMPLATE, INBOX_URI } from './resource-uris.js';
import { SOURCE_MIME_TYPE } from './source-presentation.js';
import { SOURCE_URI_TEMPLATE } from './source-uris.js';

export type WireObject = Record<string, unknown>;

export function resourceDescriptor(link: CellLink, version: ProtocolVersion): WireObject {
  const linked = supportsResourceLinks(version);
  return {
    uri: link.uri,
    name: link.name,
    ...(linked ? { title: link.title } : {}),
    description: link.description,
    mimeType: link.mimeType ?? CELL_MIME_TYPE,
    annotations: {
      priority: link.salience,
      ...(linked && link.lastModified !== undefined ? { lastModified: link.lastModified } : {}),
    },
  };
}

/** The content blocks a tool result adds for the cells it names; none for revisions without resource_link. */
export function resourceLinkBlocks(links: readonly CellLink[], version: ProtocolVersion): WireObject[] {
  if (!supportsResourceLinks(version)) return [];
  return links.map((link) => ({ type: 'resource_link', ...resourceDescriptor(link, version) }));
}

export function inboxDescriptor(version: ProtocolVersion): WireObject {
  return {
    uri: INBOX_URI,
    name: 'inbox',
    ...(supportsResourceLinks(version) ? { title: 'Your Hyphae inbox' } : {}),
    description:
      'Diffs gossiped to you that you have not drained yet (memories other agents stored that match your beacons). Reading it ' +
      'does not drain it; subscribe to hear when a diff lands.',
    mimeType: 'text/markdown',
  };
}

export function cellTemplate(version: ProtocolVersion): WireObject {
  return {
    uriTemplate: CELL_URI_TEMPLATE,
    name: 'cell',
    ...(supportsResourceLinks(version) ? { title: 'Memory cell' } : {}),
    description:
      'One memory cell by node_id (from recall, query, get_scene, drain_inbox or pull_diffs): its content as markdown with a ' +
      'provenance line, and the full node as JSON.',
    mimeType: CELL_MIME_TYPE,
  };
}

export function sourceTemplate(version: ProtocolVersion): WireObject {
  return {
    uriTemplate: SOURCE_URI_TEMPLATE,
    name: 'source',
    ...(supportsResourceLinks(version) ? { title: 'Source (document or conversation)' } : {}),
    description:
      'A source ingested whole (docs/sources.md), read in slices of Unicode code points: offset (default 0) and limit (1–20000, ' +
      'default 20000); project defaults to your current one. Gives the text exactly, its fields as JSON (total_chars, next_offset, ' +
      'next_uri) and, when more follows, a line naming the next slice. A recalled chunk links to its own slice.',
    mimeType: SOURCE_MIME_TYPE,
  };
}
