/**
 * Memories: recall by meaning (the same POST /v1/recall agents use, with its filters) or a list by
 * project, scene, type and author (GET /v1/cells). The filters live in the URL, so a view can be shared.
 */
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { CELL_TYPES, LAYERS } from '../../../src/core/cell-types.js';
import type { MemoryNode } from '../api/wire.js';
import { CellList, type CellListEntry } from '../components/cell-list.js';
import { ErrorNotice, Loading } from '../components/notices.js';
import { asApiError, useLoad } from '../components/use-load.js';
import type { ApiError } from '../api/client.js';
import { href, navigate } from '../router.js';
import { useSession } from '../session.js';

const FILTERS = ['q', 'k', 'project', 'scene_id', 'cell_type', 'author', 'layer', 'include_superseded'] as const;
type Filter = (typeof FILTERS)[number];

interface CellsPage {
  readonly cells: readonly MemoryNode[];
  readonly next_cursor: string | null;
}

interface RecallAnswer {
  readonly results: readonly { readonly node: MemoryNode; readonly distance: number; readonly score: number }[];
}

function filtersOf(params: URLSearchParams): Partial<Record<Filter, string>> {
  const filters: Partial<Record<Filter, string>> = {};
  for (const name of FILTERS) {
    const value = params.get(name);
    if (value !== null && value !== '') filters[name] = value;
  }
  return filters;
}

function submitFilters(event: Event): void {
  event.preventDefault();
  const data = new FormData(event.currentTarget as HTMLFormElement);
  const values: Record<string, string> = {};
  for (const name of FILTERS) {
    const value = data.get(name);
    if (typeof value === 'string' && value.trim() !== '') values[name] = value.trim();
  }
  navigate(href('/memories', values));
}

export function MemoriesPage({ params }: { readonly params: URLSearchParams }): JSX.Element {
  const { api, identity } = useSession();
  const filters = filtersOf(params);
  const searching = filters.q !== undefined;
  const key = JSON.stringify(filters);
  const [more, setMore] = useState<{ key: string; cells: readonly MemoryNode[]; cursor: string | null } | undefined>(undefined);
  const [moreError, setMoreError] = useState<ApiError | undefined>(undefined);

  const validity = filters.include_superseded === 'on' ? { include_superseded: true } : {};
  const listQuery = {
    project: filters.project,
    scene_id: filters.scene_id,
    cell_type: filters.cell_type,
    layer: filters.layer,
    author: filters.author,
    limit: 50,
    ...validity,
  };
  const loaded = useLoad<{ entries: readonly CellListEntry[]; cursor: string | null }>(async () => {
    if (searching) {
      const body = {
        query: filters.q,
        k: Number(filters.k ?? 10),
        ...(filters.cell_type === undefined ? {} : { cell_types: [filters.cell_type] }),
        ...(filters.scene_id === undefined ? {} : { scene_id: filters.scene_id }),
        ...(filters.project === undefined ? {} : { project: filters.project }),
        ...(filters.author === undefined ? {} : { source_agents: [filters.author] }),
        ...validity,
      };
      // "any" layer searches each layer and keeps the k best: the filter the user chose stays what it says.
      const layers = filters.layer === undefined ? LAYERS : [filters.layer];
      const answers = await Promise.all(layers.map((layer) => api.post<RecallAnswer>('/v1/query', { ...body, layer })));
      const hits = answers.flatMap((answer) => answer.results).sort((a, b) => b.score - a.score);
      return { entries: hits.slice(0, body.k), cursor: null };
    }
    const page = await api.get<CellsPage>('/v1/cells', listQuery);
    return { entries: page.cells.map((node) => ({ node })), cursor: page.next_cursor };
  }, [key]);

  const extra = more?.key === key ? more : undefined;
  const cursor = extra === undefined ? loaded.data?.cursor : extra.cursor;
  const entries = [...(loaded.data?.entries ?? []), ...(extra?.cells ?? []).map((node) => ({ node }))];

  const loadMore = async (): Promise<void> => {
    if (cursor === null || cursor === undefined) return;
    try {
      const page = await api.get<CellsPage>('/v1/cells', { ...listQuery, cursor });
      setMore({ key, cells: [...(extra?.cells ?? []), ...page.cells], cursor: page.next_cursor });
      setMoreError(undefined);
    } catch (error) {
      setMoreError(asApiError(error));
    }
  };

  return (
    <div class="page">
      <h1>Memories</h1>
      <form class="filters" role="search" aria-label="Search and filter cells" onSubmit={submitFilters} key={key}>
        <div class="field wide">
          <label for="q">Recall by meaning</label>
          <input id="q" name="q" type="search" defaultValue={filters.q ?? ''} placeholder="e.g. how do we deploy?" />
        </div>
        <div class="field">
          <label for="project">Project</label>
          <input id="project" name="project" defaultValue={filters.project ?? ''} placeholder={identity.default_project} />
        </div>
        <div class="field">
          <label for="cell_type">Type</label>
          <select id="cell_type" name="cell_type">
            <option value="">any</option>
            {CELL_TYPES.map((type) => (
              <option key={type} value={type} selected={filters.cell_type === type}>
                {type}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="author">Author agent</label>
          <input id="author" name="author" defaultValue={filters.author ?? ''} />
        </div>
        <div class="field">
          <label for="scene_id">Scene id</label>
          <input id="scene_id" name="scene_id" defaultValue={filters.scene_id ?? ''} />
        </div>
        <div class="field">
          <label for="layer">Layer</label>
          <select id="layer" name="layer">
            <option value="">any</option>
            {LAYERS.map((layer) => (
              <option key={layer} value={layer} selected={filters.layer === layer}>
                {layer}
              </option>
            ))}
          </select>
        </div>
        <div class="field narrow">
          <label for="k">Results (k)</label>
          <input id="k" name="k" type="number" min={1} max={100} defaultValue={filters.k ?? '10'} />
        </div>
        <div class="field check">
          <input id="include_superseded" name="include_superseded" type="checkbox" defaultChecked={filters.include_superseded === 'on'} />
          <label for="include_superseded">Include superseded versions</label>
        </div>
        <div class="actions">
          <button type="submit">{'Search'}</button>
          <a href={href('/memories')} class="button-link">
            Clear
          </a>
        </div>
      </form>
      <h2 id="results-heading">{searching ? `Nearest to “${filters.q ?? ''}”` : 'Newest first'}</h2>
      <Loading when={loaded.loading} />
      <ErrorNotice error={loaded.error} what={searching ? 'Recall' : 'Listing cells'} />
      {loaded.data === undefined ? null : <CellList entries={entries} label={searching ? 'Recall results' : 'Cells'} />}
      {cursor === null || cursor === undefined || searching ? null : (
        <button type="button" onClick={() => void loadMore()}>
          Load more
        </button>
      )}
      <ErrorNotice error={moreError} what="Loading more" />
    </div>
  );
}
