/**
 * Where the subgraph drawing puts things: one column per depth (the start at the left), members in
 * the breadth-first order the server answered, and each edge as a path between two member boxes
 * with a point for its label. Pure: the same subgraph always draws the same way.
 */
import { IMPLICIT_RELATION_TYPES } from '../../../src/core/relation-types.js';
import type { Subgraph, SubgraphMember } from '../api/wire.js';

export const BOX_WIDTH = 210;
export const BOX_HEIGHT = 44;
const COLUMN = 300;
const ROW = 64;
const MARGIN = 24;

const IMPLICIT: ReadonlySet<string> = new Set(IMPLICIT_RELATION_TYPES);

export interface PlacedMember {
  readonly member: SubgraphMember;
  readonly x: number;
  readonly y: number;
}

export interface PlacedEdge {
  readonly from: string;
  readonly to: string;
  readonly type: string;
  /** Derived by the server (supersedes, in_scene…) rather than declared by an agent. */
  readonly implicit: boolean;
  /** An SVG path from the `from` box to the `to` box. */
  readonly path: string;
  readonly labelX: number;
  readonly labelY: number;
}

export interface SubgraphLayout {
  readonly width: number;
  readonly height: number;
  readonly members: readonly PlacedMember[];
  readonly edges: readonly PlacedEdge[];
}

function isImplicit(type: string): boolean {
  return IMPLICIT.has(type);
}

/** A path between two boxes: across columns a straight line between facing sides, within one a bow to the right. */
function edgePath(a: PlacedMember, b: PlacedMember): { path: string; labelX: number; labelY: number } {
  const ay = a.y + BOX_HEIGHT / 2;
  const by = b.y + BOX_HEIGHT / 2;
  if (a.x === b.x) {
    const x = a.x + BOX_WIDTH;
    const bow = x + 30 + Math.abs(by - ay) / 6;
    return { path: `M ${x} ${ay} Q ${bow} ${(ay + by) / 2} ${x} ${by}`, labelX: (x + bow) / 2 + 4, labelY: (ay + by) / 2 };
  }
  const [ax, bx] = a.x < b.x ? [a.x + BOX_WIDTH, b.x] : [a.x, b.x + BOX_WIDTH];
  return { path: `M ${ax} ${ay} L ${bx} ${by}`, labelX: (ax + bx) / 2, labelY: (ay + by) / 2 - 4 };
}

export function layoutSubgraph(subgraph: Subgraph): SubgraphLayout {
  const rows = new Map<number, number>();
  const placed = new Map<string, PlacedMember>();
  for (const member of subgraph.members) {
    const row = rows.get(member.depth) ?? 0;
    rows.set(member.depth, row + 1);
    placed.set(member.id, { member, x: MARGIN + member.depth * COLUMN, y: MARGIN + row * ROW });
  }
  const edges: PlacedEdge[] = [];
  for (const relation of subgraph.relations) {
    const a = placed.get(relation.from);
    const b = placed.get(relation.to);
    if (a === undefined || b === undefined) continue;
    edges.push({ from: relation.from, to: relation.to, type: relation.type, implicit: isImplicit(relation.type), ...edgePath(a, b) });
  }
  const depths = Math.max(0, ...rows.keys()) + 1;
  const tallest = Math.max(1, ...rows.values());
  return {
    width: MARGIN * 2 + (depths - 1) * COLUMN + BOX_WIDTH + 60,
    height: MARGIN * 2 + (tallest - 1) * ROW + BOX_HEIGHT,
    members: [...placed.values()],
    edges,
  };
}
