/**
 * The tenant's agents on a circle, an edge for each author → recipient pair gossip has joined
 * (thicker with use), and a dot running along the edge for each delivery as it happens.
 */
import type { JSX } from 'preact';
import type { GossipEvent } from '../api/wire.js';

const WIDTH = 640;
const HEIGHT = 440;
const RADIUS = 170;
/** How long a delivery's dot stays on screen. */
export const PULSE_MS = 1600;

export interface GraphAgent {
  readonly agent: string;
  readonly beacons: number;
}

export interface Pulse {
  readonly id: string;
  readonly event: GossipEvent;
}

interface Point {
  readonly x: number;
  readonly y: number;
}

function layout(agents: readonly GraphAgent[]): Map<string, Point> {
  const positions = new Map<string, Point>();
  const count = Math.max(agents.length, 1);
  agents.forEach(({ agent }, index) => {
    const angle = (2 * Math.PI * index) / count - Math.PI / 2;
    positions.set(agent, { x: WIDTH / 2 + RADIUS * Math.cos(angle), y: HEIGHT / 2 + RADIUS * Math.sin(angle) });
  });
  return positions;
}

export interface GossipGraphProps {
  readonly agents: readonly GraphAgent[];
  /** `author → recipient` → deliveries seen. */
  readonly edges: ReadonlyMap<string, number>;
  readonly pulses: readonly Pulse[];
  readonly self: string;
  readonly animate: boolean;
}

export function edgeKey(from: string, to: string): string {
  return `${from}\u0000${to}`;
}

export function GossipGraph({ agents, edges, pulses, self, animate }: GossipGraphProps): JSX.Element {
  const positions = layout(agents);
  const lines: JSX.Element[] = [];
  for (const [key, count] of edges) {
    const [from = '', to = ''] = key.split('\u0000');
    const a = positions.get(from);
    const b = positions.get(to);
    if (a === undefined || b === undefined) continue;
    lines.push(<line key={key} x1={a.x} y1={a.y} x2={b.x} y2={b.y} class="edge" stroke-width={Math.min(1 + Math.log2(count + 1), 6)} />);
  }
  return (
    <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} class="graph" role="img" aria-labelledby="graph-title graph-desc">
      <title id="graph-title">Gossip between agents</title>
      <desc id="graph-desc">
        {agents.length} agents; each line joins an author to an agent that received its memories. The list beside it says the same in words.
      </desc>
      <g>{lines}</g>
      <g>
        {pulses.map(({ id, event }) => {
          const a = positions.get(event.diff.source_agent);
          const b = positions.get(event.recipient_agent);
          if (a === undefined || b === undefined) return null;
          return (
            <g key={id} class="pulse">
              <line x1={a.x} y1={a.y} x2={b.x} y2={b.y} class="edge-live" />
              <circle r={7} cx={b.x} cy={b.y} class={`dot type-${event.diff.cell_type}`}>
                {animate ? <animate attributeName="cx" from={String(a.x)} to={String(b.x)} dur={`${PULSE_MS}ms`} fill="freeze" /> : null}
                {animate ? <animate attributeName="cy" from={String(a.y)} to={String(b.y)} dur={`${PULSE_MS}ms`} fill="freeze" /> : null}
              </circle>
            </g>
          );
        })}
      </g>
      <g>
        {agents.map(({ agent, beacons }) => {
          const p = positions.get(agent);
          if (p === undefined) return null;
          return (
            <g key={agent} class={agent === self ? 'agent agent-self' : 'agent'}>
              <circle cx={p.x} cy={p.y} r={18} />
              <text x={p.x} y={p.y + 34} text-anchor="middle">
                {agent}
              </text>
              <text x={p.x} y={p.y + 5} text-anchor="middle" class="beacon-count">
                {beacons}
              </text>
            </g>
          );
        })}
      </g>
    </svg>
  );
}
