/**
 * Sources: the project's ingested documents and conversations, newest first, each with the state
 * of its latest ingestion (GET /v1/sources, then GET /v1/sources/{id}/status for each shown).
 */
import type { JSX } from 'preact';
import type { ApiClient } from '../api/client.js';
import type { SourceStatus, SourceSummary, SourcesPage as SourceList } from '../api/wire.js';
import { PagedTable } from '../components/paged-table.js';
import { useLoad } from '../components/use-load.js';
import { useMorePages, type ListPage } from '../components/use-more-pages.js';
import { formatInstant } from '../format.js';
import { href, navigate } from '../router.js';
import { useSession } from '../session.js';

const PAGE = 20;

interface Listed {
  readonly source: SourceSummary;
  readonly status: SourceStatus | undefined;
}

/** How a status reads in a table cell: "ready", "indexing 3 / 10", "failed: reason". */
export function statusText(status: SourceStatus | undefined): string {
  if (status === undefined) return '—';
  const progress = status.state === 'indexing' ? ` ${status.chunks_done} / ${status.chunks_total}` : '';
  const failure = status.state === 'failed' && status.failure !== null ? `: ${status.failure}` : '';
  return `${status.state}${progress}${failure}${status.serving_previous ? ' (previous version served)' : ''}`;
}

export function sourceHref(source: { readonly source_id: string; readonly project: string }): string {
  return href(`/sources/${encodeURIComponent(source.source_id)}`, { project: source.project });
}

async function pageWithStatus(api: ApiClient, query: Readonly<Record<string, string | number | undefined>>): Promise<ListPage<Listed>> {
  const page = await api.get<SourceList>('/v1/sources', query);
  const rows = await Promise.all(
    page.sources.map(async (source) => ({
      source,
      // A source deleted between the two reads has no status: shown as unknown, not as a failed page.
      status: await api.get<SourceStatus>(`/v1/sources/${encodeURIComponent(source.source_id)}/status`, { project: source.project }).catch(() => undefined),
    })),
  );
  return { rows, cursor: page.next_cursor };
}

export function SourcesPage({ params }: { readonly params: URLSearchParams }): JSX.Element {
  const { api, identity } = useSession();
  const kind = params.get('kind') ?? '';
  const project = params.get('project') ?? '';
  const query = { kind: kind === '' ? undefined : kind, project: project === '' ? undefined : project, limit: PAGE };
  const key = `${kind}|${project}`;
  const loaded = useLoad(() => pageWithStatus(api, query), [key]);
  const pages = useMorePages(key, loaded.data, (cursor) => pageWithStatus(api, { ...query, cursor }));

  const submit = (event: Event): void => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    navigate(href('/sources', { kind: String(data.get('kind') ?? ''), project: String(data.get('project') ?? '').trim() }));
  };

  return (
    <div class="page">
      <h1>Sources</h1>
      <p class="help">Documents and conversations ingested whole, cut into chunks that recall finds.</p>
      <form class="filters" aria-label="Filter sources" onSubmit={submit} key={key}>
        <div class="field">
          <label for="source-kind">Kind</label>
          <select id="source-kind" name="kind">
            <option value="">any</option>
            {['knowledge', 'memory'].map((value) => (
              <option key={value} value={value} selected={kind === value}>
                {value}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="source-project">Project</label>
          <input id="source-project" name="project" defaultValue={project} placeholder={identity.default_project} />
        </div>
        <div class="actions">
          <button type="submit">Show</button>
        </div>
      </form>
      <PagedTable
        label="Sources"
        columns={['Source', 'Kind', 'Chunks', 'Characters', 'Status', 'Updated']}
        loaded={loaded}
        pages={pages}
        row={({ source, status }) => (
          <tr key={`${source.project}/${source.source_id}`}>
            <td>
              <a href={sourceHref(source)}>{source.title ?? source.source_id}</a>
              <span class="meta"> {source.source_id}</span>
            </td>
            <td>
              {source.kind} ({source.format})
            </td>
            <td>{source.chunk_count}</td>
            <td>{source.total_chars}</td>
            <td>{statusText(status)}</td>
            <td>{formatInstant(source.updated_at)}</td>
          </tr>
        )}
        what="Listing sources"
        empty="No sources in this project yet."
      />
    </div>
  );
}
