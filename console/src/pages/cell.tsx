/**
 * One cell: its content (always rendered as text), provenance, energy, hits, corroborations and
 * version history; supersede (store a new version with `supersedes`) and delete, each confirmed.
 */
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { CELL_TYPES } from '../../../src/core/cell-types.js';
import type { CellHistory, CellType, Corroboration, MemoryNode, StoredNode } from '../api/wire.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { FactList } from '../components/fact-list.js';
import { SubgraphSection } from '../components/subgraph-section.js';
import { Done, ErrorNotice, Loading } from '../components/notices.js';
import { useConfirmedAction } from '../components/use-confirmed-action.js';
import { useLoad } from '../components/use-load.js';
import { formatInstant, formatNumber, preview } from '../format.js';
import { cellHref, href, navigate } from '../router.js';
import { hasRole, useSession } from '../session.js';

interface CellView {
  readonly cell: MemoryNode;
  readonly history: readonly MemoryNode[];
  /** The restatements of every version; the page lists this version's. */
  readonly corroborations: readonly Corroboration[];
}

function Provenance({ cell }: { readonly cell: MemoryNode }): JSX.Element {
  const rows: [string, JSX.Element | string][] = [
    ['Type', cell.cell_type],
    ['Layer', cell.layer],
    ['Project', cell.project],
    ['Author', cell.source_agent],
    ['Stated by', cell.stated_by.join(', ')],
    ['Trust', formatNumber(cell.trust)],
    ['Salience', formatNumber(cell.salience)],
    ['Energy', formatNumber(cell.energy)],
    ['Hits (recalled)', String(cell.hits)],
    ['Scene', cell.scene_id === null ? '—' : <a href={href('/memories', { scene_id: cell.scene_id })}>{cell.scene_id}</a>],
    ['Session', cell.session_id ?? '—'],
    ['Source', cell.source_ref === null ? '—' : `${cell.source_ref.kind}: ${cell.source_ref.locator}`],
    ['Created', formatInstant(cell.created_at)],
    ['Current from', formatInstant(cell.valid_from)],
    ['Superseded at', formatInstant(cell.valid_until)],
  ];
  return <FactList rows={rows} />;
}

function History({ cell, history }: CellView): JSX.Element {
  return (
    <section aria-labelledby="history-heading">
      <h2 id="history-heading">Version history</h2>
      <ol class="history" aria-label="Versions, oldest first">
        {history.map((version, index) => (
          <li key={version.node_id} aria-current={version.node_id === cell.node_id ? 'page' : undefined}>
            <a href={cellHref(version.node_id)}>
              Version {index + 1}
              {version.valid_until === null ? ' (current)' : ''}
            </a>{' '}
            <span class="meta">
              by {version.source_agent} · {formatInstant(version.valid_from)} — {preview(version.content, 90)}
            </span>
          </li>
        ))}
      </ol>
    </section>
  );
}

/** Each store that restated this cell: who, when, how alike, and its own words (kept, never folded away). */
function Corroborations({ cell, corroborations }: CellView): JSX.Element {
  const records = corroborations.filter((record) => record.node_id === cell.node_id);
  return (
    <section aria-labelledby="corroborations-heading">
      <h2 id="corroborations-heading">Corroborations</h2>
      <p>
        {cell.corroborations === 0
          ? 'No other store restated this cell.'
          : `Restated ${cell.corroborations} time${cell.corroborations === 1 ? '' : 's'}, by ${cell.stated_by.slice(1).join(', ') || 'its author'}.`}
      </p>
      {records.length === 0 ? null : (
        <ol class="history" aria-label="Restatements, oldest first">
          {records.map((record) => (
            <li key={record.corroboration_id}>
              <span class="meta">
                by {record.agent} · {formatInstant(record.created_at)} · similarity {formatNumber(record.similarity)}
              </span>
              <pre class="content">{record.content}</pre>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

interface SupersedeDraft {
  readonly content: string;
  readonly cell_type: CellType;
  readonly salience: number;
}

function SupersedeForm({ cell, onStored }: { readonly cell: MemoryNode; onStored(node: StoredNode): void }): JSX.Element {
  const { api } = useSession();
  const [draft, setDraft] = useState<SupersedeDraft>({ content: cell.content, cell_type: cell.cell_type, salience: cell.salience });
  const supersede = useConfirmedAction(async () => onStored(await api.post<StoredNode>('/v1/cells', { ...draft, supersedes: cell.node_id })));
  return (
    <section aria-labelledby="supersede-heading">
      <h2 id="supersede-heading">Supersede</h2>
      <p class="help">Stores a corrected version; this one stays in the history and stops being recalled.</p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          supersede.ask();
        }}
      >
        <label for="supersede-content">New content</label>
        <textarea
          id="supersede-content"
          rows={5}
          required
          value={draft.content}
          onInput={(event) => setDraft({ ...draft, content: event.currentTarget.value })}
        />
        <div class="row">
          <div class="field">
            <label for="supersede-type">Type</label>
            <select
              id="supersede-type"
              value={draft.cell_type}
              onChange={(event) => setDraft({ ...draft, cell_type: event.currentTarget.value as CellType })}
            >
              {CELL_TYPES.map((type) => (
                <option key={type} value={type}>
                  {type}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="supersede-salience">Salience (0–1)</label>
            <input
              id="supersede-salience"
              type="number"
              min={0}
              max={1}
              step={0.05}
              value={draft.salience}
              onInput={(event) => setDraft({ ...draft, salience: Number(event.currentTarget.value) })}
            />
          </div>
        </div>
        <button type="submit">Supersede…</button>
      </form>
      <ErrorNotice error={supersede.error} what="Superseding" />
      <ConfirmDialog
        open={supersede.confirming}
        title="Supersede this cell?"
        confirmLabel="Store new version"
        busy={supersede.busy}
        onCancel={supersede.cancel}
        onConfirm={supersede.confirm}
      >
        <p>The new version is gossiped to every agent whose beacon it matches.</p>
      </ConfirmDialog>
    </section>
  );
}

function DeleteAction({ cell, onDeleted }: { readonly cell: MemoryNode; onDeleted(): void }): JSX.Element {
  const { api } = useSession();
  const remove = useConfirmedAction(async () => {
    await api.delete(`/v1/cells/${encodeURIComponent(cell.node_id)}`);
    onDeleted();
  });
  return (
    <section aria-labelledby="delete-heading">
      <h2 id="delete-heading">Delete</h2>
      <button type="button" class="danger" onClick={remove.ask}>
        Delete…
      </button>
      <ErrorNotice error={remove.error} what="Deleting" />
      <ConfirmDialog
        open={remove.confirming}
        title="Delete this cell?"
        confirmLabel="Delete"
        busy={remove.busy}
        onCancel={remove.cancel}
        onConfirm={remove.confirm}
      >
        <p>It cannot be undone. Agents whose beacons it matched are told it was deleted.</p>
      </ConfirmDialog>
    </section>
  );
}

export function CellPage({ id }: { readonly id: string }): JSX.Element {
  const { api, identity } = useSession();
  const [deleted, setDeleted] = useState(false);
  const loaded = useLoad<CellView>(async () => {
    const path = `/v1/cells/${encodeURIComponent(id)}`;
    const [cell, history] = await Promise.all([
      api.get<MemoryNode>(path),
      api.get<CellHistory>(`${path}/history`),
    ]);
    return { cell, history: history.cells, corroborations: history.corroborations };
  }, [id]);
  if (deleted) {
    return (
      <div class="page">
        <h1>Cell deleted</h1>
        <Done>
          The cell was deleted. <a href={href('/memories')}>Back to memories</a>
        </Done>
      </div>
    );
  }
  const view = loaded.data;
  const writer = hasRole(identity, 'writer');
  return (
    <div class="page">
      <p>
        <a href={href('/memories')}>← Memories</a>
      </p>
      <h1>{view === undefined ? 'Cell' : `${view.cell.cell_type} in ${view.cell.project}`}</h1>
      <Loading when={loaded.loading && view === undefined} />
      <ErrorNotice error={loaded.error} what="Reading the cell" />
      {view === undefined ? null : (
        <>
          {view.cell.valid_until === null ? null : (
            <p class="notice" role="status">
              This version was superseded
              {view.cell.superseded_by === null ? '' : ' by '}
              {view.cell.superseded_by === null ? null : <a href={cellHref(view.cell.superseded_by)}>a newer one</a>}.
            </p>
          )}
          <section aria-labelledby="content-heading">
            <h2 id="content-heading">Content</h2>
            <pre class="content">{view.cell.content}</pre>
          </section>
          <Provenance cell={view.cell} />
          {Object.keys(view.cell.metadata).length === 0 ? null : (
            <section aria-labelledby="metadata-heading">
              <h2 id="metadata-heading">Metadata</h2>
              <pre class="content">{JSON.stringify(view.cell.metadata, null, 2)}</pre>
            </section>
          )}
          <History {...view} />
          <Corroborations {...view} />
          <SubgraphSection start={view.cell.node_id} what="cell" />
          {writer && view.cell.valid_until === null && view.cell.layer === 'L0' ? (
            <SupersedeForm cell={view.cell} onStored={(node) => navigate(cellHref(node.node_id))} />
          ) : null}
          {writer ? <DeleteAction cell={view.cell} onDeleted={() => setDeleted(true)} /> : null}
        </>
      )}
    </div>
  );
}
