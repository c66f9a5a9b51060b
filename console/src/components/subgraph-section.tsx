/** A cell's or a source's neighbourhood on its page: a depth control (1–3), what the walk found, and the drawing. */
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { SourceChunksPage, Subgraph } from '../api/wire.js';
import { useSession } from '../session.js';
import { ErrorNotice, Loading } from './notices.js';
import { SubgraphDrawing } from './subgraph-drawing.js';
import { useLoad } from './use-load.js';

/** Most members drawn: beyond this many boxes a drawing stops being readable (the REST subgraph answers up to 1,000). */
const DRAWN_MEMBERS = 50;
const DEPTHS = [1, 2, 3] as const;

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

export function SubgraphSection({ start, what }: { readonly start: string; readonly what: string }): JSX.Element {
  const { api } = useSession();
  const [depth, setDepth] = useState(2);
  const loaded = useLoad(
    async () => ({ depth, subgraph: await api.get<Subgraph>(`/v1/cells/${encodeURIComponent(start)}/subgraph`, { depth, max_members: DRAWN_MEMBERS }) }),
    [start, depth],
  );
  const shown = loaded.data;
  return (
    <section aria-labelledby="subgraph-heading">
      <h2 id="subgraph-heading">Neighbourhood</h2>
      <p class="help">
        What surrounds this {what}, breadth-first: relations agents declared (solid lines) and the edges the server derives — versions, scenes,
        sessions, sources, restatements, promotion (dashed). Each box opens its page.
      </p>
      <div class="field">
        <label for="subgraph-depth">Depth</label>
        <select id="subgraph-depth" value={String(depth)} onChange={(event) => setDepth(Number(event.currentTarget.value))}>
          {DEPTHS.map((d) => (
            <option key={d} value={String(d)}>
              {d}
            </option>
          ))}
        </select>
      </div>
      <Loading when={loaded.loading && shown === undefined} />
      <ErrorNotice error={loaded.error} what="Walking the neighbourhood" />
      {shown === undefined ? null : (
        <>
          <p class="subgraph-summary" role="status">
            {plural(shown.subgraph.members.length, 'member', 'members')} and {plural(shown.subgraph.relations.length, 'edge', 'edges')} within depth {shown.depth}
            {shown.subgraph.truncated ? `; truncated at ${DRAWN_MEMBERS} members: more lie within depth ${shown.depth}.` : '.'}
          </p>
          <SubgraphDrawing subgraph={shown.subgraph} />
        </>
      )}
    </section>
  );
}

/** A source's neighbourhood: the subgraph of its first chunk, as the server's source subgraph starts (docs/relations.md). */
export function SourceSubgraphSection({ id, project }: { readonly id: string; readonly project: string }): JSX.Element {
  const { api } = useSession();
  const first = useLoad(() => api.get<SourceChunksPage>(`/v1/sources/${encodeURIComponent(id)}/chunks`, { project, limit: 1 }), [id, project]);
  const start = first.data?.chunks[0]?.node_id;
  if (first.error !== undefined) return <ErrorNotice error={first.error} what="Reading the first chunk" />;
  if (first.data === undefined) return <Loading when={first.loading} />;
  if (start === undefined || start === null) return <p class="empty">No neighbourhood yet: the source has no served chunk.</p>;
  return <SubgraphSection start={start} what="source" />;
}
