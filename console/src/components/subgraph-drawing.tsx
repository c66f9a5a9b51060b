/**
 * A subgraph drawn as SVG: members in columns by depth, each a link to its page (a session has
 * none), edges labelled by type — declared relations solid, implicit edges dashed.
 */
import type { JSX } from 'preact';
import type { Subgraph, SubgraphMember } from '../api/wire.js';
import { preview } from '../format.js';
import { cellHref, href } from '../router.js';
import { BOX_HEIGHT, BOX_WIDTH, layoutSubgraph } from './subgraph-layout.js';

const KIND_NAMES: Readonly<Record<SubgraphMember['kind'], string>> = {
  cell: 'Cell',
  scene: 'Scene',
  session: 'Session',
  source: 'Source',
  corroboration: 'Restatement',
};

/** The console page a member opens; a restatement opens the cell it restated, a session has no page. */
function memberHref(member: SubgraphMember, subgraph: Subgraph): string | undefined {
  switch (member.kind) {
    case 'cell':
      return cellHref(member.id);
    case 'scene':
      return href('/memories', { scene_id: member.id });
    case 'source':
      return href(`/sources/${encodeURIComponent(member.id)}`, { project: member.project ?? undefined });
    case 'corroboration': {
      const restated = subgraph.relations.find((r) => r.type === 'corroborated_by' && r.to === member.id);
      return restated === undefined ? undefined : cellHref(restated.from);
    }
    case 'session':
      return undefined;
  }
}

function title(member: SubgraphMember): string {
  return member.kind === 'cell' && member.cell_type !== null ? member.cell_type : KIND_NAMES[member.kind];
}

function MemberBox({ member, x, y, link, start }: { readonly member: SubgraphMember; readonly x: number; readonly y: number; readonly link: string | undefined; readonly start: boolean }): JSX.Element {
  const text = member.preview ?? member.id;
  const name = `${title(member)}: ${preview(text, 80)}`;
  const body = (
    <>
      <title>{`${title(member)} ${member.id}${member.depth === 0 ? '' : ` — depth ${member.depth}, reached by ${member.discovered_relation ?? ''}`}\n${text}`}</title>
      <rect x={x} y={y} width={BOX_WIDTH} height={BOX_HEIGHT} rx={6} />
      <text x={x + 8} y={y + 17} class="member-kind">
        {title(member)}
      </text>
      <text x={x + 8} y={y + 35}>
        {preview(text, 30)}
      </text>
    </>
  );
  const shared = { class: `member member-${member.kind}${start ? ' member-start' : ''}`, 'data-id': member.id, 'data-depth': String(member.depth) };
  return link === undefined ? (
    <g {...shared} aria-label={name}>
      {body}
    </g>
  ) : (
    <a {...shared} href={link} aria-label={name}>
      {body}
    </a>
  );
}

export function SubgraphDrawing({ subgraph }: { readonly subgraph: Subgraph }): JSX.Element {
  const layout = layoutSubgraph(subgraph);
  return (
    <div class="subgraph-scroll">
      <svg class="graph subgraph" width={layout.width} height={layout.height} viewBox={`0 0 ${layout.width} ${layout.height}`} aria-label="Subgraph drawing">
        <defs>
          <marker id="subgraph-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" />
          </marker>
        </defs>
        <g>
          {layout.edges.map((edge) => (
            <g key={`${edge.from} ${edge.type} ${edge.to}`} class={edge.implicit ? 'relation implicit' : 'relation explicit'} data-from={edge.from} data-to={edge.to} data-type={edge.type}>
              <path d={edge.path} marker-end="url(#subgraph-arrow)" />
              <text x={edge.labelX} y={edge.labelY} text-anchor="middle">
                {edge.type}
              </text>
            </g>
          ))}
        </g>
        <g>
          {layout.members.map(({ member, x, y }) => (
            <MemberBox key={`${member.kind} ${member.id}`} member={member} x={x} y={y} link={memberHref(member, subgraph)} start={member.depth === 0} />
          ))}
        </g>
      </svg>
    </div>
  );
}
