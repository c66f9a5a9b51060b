/** Cells as a list of links: layer, type, project, author, a one-line preview (always text, never markup). */
import type { JSX } from 'preact';
import type { Layer, MemoryNode } from '../api/wire.js';
import { formatInstant, formatNumber, preview } from '../format.js';
import { cellHref } from '../router.js';

const LAYER_MEANING: Readonly<Record<Layer, string>> = {
  L0: 'L0: a raw cell, as an agent stored it',
  L1: 'L1: a scene summary',
  L2: 'L2: promoted durable knowledge (a copy of an L0 cell that kept proving useful)',
};

export interface CellListEntry {
  readonly node: MemoryNode;
  readonly distance?: number;
}

export function CellList({ entries, label }: { readonly entries: readonly CellListEntry[]; readonly label: string }): JSX.Element {
  if (entries.length === 0) return <p class="empty">No cells.</p>;
  return (
    <ol class="cell-list" aria-label={label}>
      {entries.map(({ node, distance }) => (
        <li key={node.node_id}>
          <a href={cellHref(node.node_id)} class="cell-link">
            {/* A promoted L2 copy has its L0 original's content: the layer tells the two rows apart. */}
            <span class={`badge layer layer-${node.layer}`} title={LAYER_MEANING[node.layer]}>
              {node.layer}
            </span>
            <span class={`badge type-${node.cell_type}`}>{node.cell_type}</span>
            <span class="cell-preview">{preview(node.content)}</span>
          </a>
          <span class="meta">
            {node.project} · by {node.source_agent} · {formatInstant(node.created_at)}
            {node.valid_until === null ? '' : ' · superseded'}
            {distance === undefined ? '' : ` · distance ${formatNumber(distance)}`}
          </span>
        </li>
      ))}
    </ol>
  );
}
