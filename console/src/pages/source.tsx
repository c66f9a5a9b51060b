/**
 * One source: its fields and ingestion status, its chunks page by page (heading path, range,
 * status, the chunk cell), and its text read slice by slice (GET /v1/sources/{id}?offset=).
 */
import type { JSX } from 'preact';
import type { SourceChunk, SourceChunksPage, SourceSlice, SourceStatus } from '../api/wire.js';
import { FactList } from '../components/fact-list.js';
import { SourceSubgraphSection } from '../components/subgraph-section.js';
import { ErrorNotice, Loading } from '../components/notices.js';
import { PagedTable } from '../components/paged-table.js';
import { useLoad } from '../components/use-load.js';
import { useMorePages, type ListPage } from '../components/use-more-pages.js';
import { formatInstant } from '../format.js';
import { cellHref, href } from '../router.js';
import { useSession } from '../session.js';
import { statusText } from './sources.js';

const CHUNKS_PER_PAGE = 50;
const SLICE_CHARS = 4_000;

function Facts({ slice, status }: { readonly slice: SourceSlice; readonly status: SourceStatus }): JSX.Element {
  const rows: [string, string][] = [
    ['Source id', slice.source_id],
    ['Project', slice.project],
    ['Kind', slice.kind],
    ['Format', slice.format],
    ['Status', statusText(status)],
    ['Chunks', String(slice.chunk_count)],
    ['Characters', String(slice.total_chars)],
    ['Bytes (UTF-8)', String(slice.total_bytes)],
    ['Ingested by', slice.created_by],
    ['Observed on', slice.observation_date ?? '—'],
    ['Created', formatInstant(slice.created_at)],
    ['Updated', formatInstant(slice.updated_at)],
  ];
  return <FactList rows={rows} />;
}

function Chunks({ id, project }: { readonly id: string; readonly project: string }): JSX.Element {
  const { api } = useSession();
  const path = `/v1/sources/${encodeURIComponent(id)}/chunks`;
  const loaded = useLoad(() => api.get<SourceChunksPage>(path, { project, limit: CHUNKS_PER_PAGE }), [id, project]);
  const listPage = (page: SourceChunksPage): ListPage<SourceChunk> => ({ rows: page.chunks, cursor: page.next_cursor });
  const pages = useMorePages(`${id}|${project}`, loaded.data === undefined ? undefined : listPage(loaded.data), async (cursor) =>
    listPage(await api.get<SourceChunksPage>(path, { project, limit: CHUNKS_PER_PAGE, version: loaded.data?.version, cursor })),
  );
  return (
    <section aria-labelledby="chunks-heading">
      <h2 id="chunks-heading">Chunks{loaded.data === undefined ? '' : ` (${loaded.data.chunks_total}, ${loaded.data.version} version)`}</h2>
      <PagedTable
        label="Chunks"
        columns={['#', 'Heading path', 'Characters', 'Status']}
        loaded={loaded}
        pages={pages}
        row={(chunk) => (
          <tr key={chunk.chunk_index}>
            <td>{chunk.node_id === null ? chunk.chunk_index : <a href={cellHref(chunk.node_id)}>{chunk.chunk_index}</a>}</td>
            <td>{chunk.heading_path === '' ? '—' : chunk.heading_path}</td>
            <td>
              <a href={href(`/sources/${encodeURIComponent(id)}`, { project, offset: String(chunk.char_start) })}>
                {chunk.char_start}–{chunk.char_end}
              </a>
            </td>
            <td>{chunk.status}</td>
          </tr>
        )}
        what="Reading the chunks"
        empty="No chunks to show."
        moreLabel="More chunks"
        moreWhat="Loading more chunks"
      />
    </section>
  );
}

export function SourcePage({ id, params }: { readonly id: string; readonly params: URLSearchParams }): JSX.Element {
  const { api } = useSession();
  const project = params.get('project') ?? undefined;
  const offset = Math.max(0, Number(params.get('offset') ?? '0') || 0);
  const path = `/v1/sources/${encodeURIComponent(id)}`;
  const loaded = useLoad(
    async () => {
      const [slice, status] = await Promise.all([api.get<SourceSlice>(path, { project, offset, limit: SLICE_CHARS }), api.get<SourceStatus>(`${path}/status`, { project })]);
      return { slice, status };
    },
    [id, project, offset],
  );
  const slice = loaded.data?.slice;
  const sliceHref = (at: number): string => href(`/sources/${encodeURIComponent(id)}`, { project: slice?.project ?? project, offset: String(at) });
  return (
    <div class="page">
      <h1>{slice?.title ?? id}</h1>
      <Loading when={loaded.loading && loaded.data === undefined} />
      <ErrorNotice error={loaded.error} what="Reading the source" />
      {loaded.data === undefined || slice === undefined ? null : (
        <>
          <Facts slice={slice} status={loaded.data.status} />
          <Chunks id={id} project={slice.project} />
          <SourceSubgraphSection id={id} project={slice.project} />
          <section aria-labelledby="text-heading">
            <h2 id="text-heading">
              Text, characters {slice.offset}–{slice.offset + Array.from(slice.text).length} of {slice.total_chars}
            </h2>
            <pre class="content" aria-label="Source text">
              {slice.text}
            </pre>
            <p class="actions">
              {slice.offset > 0 ? <a href={sliceHref(Math.max(0, slice.offset - SLICE_CHARS))}>Previous slice</a> : null}{' '}
              {slice.next_offset === null ? null : <a href={sliceHref(slice.next_offset)}>Next slice</a>}
            </p>
          </section>
        </>
      )}
    </div>
  );
}
