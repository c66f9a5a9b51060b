/**
 * Gossip, live: the agents the key may see with their beacons, memories flowing from author to
 * recipients as they are stored (GET /v1/gossip/stream), and the latest deliveries in words.
 */
import type { JSX } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { ApiError } from '../api/client.js';
import { followEventStream } from '../api/event-stream.js';
import type { GossipAgent, GossipEvent } from '../api/wire.js';
import { edgeKey, GossipGraph, PULSE_MS, type GraphAgent, type Pulse } from '../components/gossip-graph.js';
import { ErrorNotice, Loading } from '../components/notices.js';
import { useLoad } from '../components/use-load.js';
import { formatInstant, preview } from '../format.js';
import { cellHref, href } from '../router.js';
import { useSession } from '../session.js';

const LOG_SIZE = 50;

function eventId(event: GossipEvent): string {
  return `${event.recipient_agent}:${event.diff.diff_id}`;
}

export function EventLine({ event }: { readonly event: GossipEvent }): JSX.Element {
  const { diff } = event;
  return (
    <>
      <span class="who">
        {diff.source_agent} → {event.recipient_agent}
      </span>{' '}
      <span class={`badge type-${diff.cell_type}`}>{diff.cell_type}</span> {diff.op}{' '}
      {diff.op === 'deleted' ? <span>{preview(diff.preview, 100)}</span> : <a href={cellHref(diff.node_id)}>{preview(diff.preview, 100)}</a>}{' '}
      <span class="meta">
        {diff.project} · {formatInstant(diff.created_at)}
      </span>
    </>
  );
}

export function GossipPage(): JSX.Element {
  const { api, identity } = useSession();
  const agents = useLoad(() => api.get<{ agents: readonly GossipAgent[] }>('/v1/gossip/agents'), []);
  const recent = useLoad(() => api.get<{ events: readonly GossipEvent[] }>('/v1/gossip/events', { limit: LOG_SIZE }), []);
  const [live, setLive] = useState<readonly GossipEvent[]>([]);
  const [pulses, setPulses] = useState<readonly Pulse[]>([]);
  const [connected, setConnected] = useState(false);
  const [streamError, setStreamError] = useState<ApiError | undefined>(undefined);
  const animate = useMemo(() => !window.matchMedia('(prefers-reduced-motion: reduce)').matches, []);

  useEffect(() => {
    const abort = new AbortController();
    followEventStream(
      api,
      '/v1/gossip/stream',
      {
        onEvent(message) {
          if (message.event !== 'gossip') return;
          const event = JSON.parse(message.data) as GossipEvent;
          const id = `${eventId(event)}:${Date.now()}`;
          setLive((previous) => [event, ...previous].slice(0, LOG_SIZE));
          setPulses((previous) => [...previous, { id, event }]);
          setTimeout(() => setPulses((previous) => previous.filter((pulse) => pulse.id !== id)), PULSE_MS + 400);
        },
        onStatus(open, error) {
          setConnected(open);
          setStreamError(error);
          // The stream is live only: on each (re)connection the recent list covers what a gap missed.
          if (open) recent.reload();
        },
      },
      abort.signal,
    );
    return () => abort.abort();
  }, [api, recent.reload]);

  const seen = new Set(live.map(eventId));
  const log = [...live, ...(recent.data?.events ?? []).filter((event) => !seen.has(eventId(event)))].slice(0, LOG_SIZE);
  const graphAgents = new Map<string, GraphAgent>();
  for (const agent of agents.data?.agents ?? []) graphAgents.set(agent.agent, { agent: agent.agent, beacons: agent.beacons.length });
  const edges = new Map<string, number>();
  for (const event of log) {
    for (const name of [event.diff.source_agent, event.recipient_agent]) if (!graphAgents.has(name)) graphAgents.set(name, { agent: name, beacons: 0 });
    const key = edgeKey(event.diff.source_agent, event.recipient_agent);
    edges.set(key, (edges.get(key) ?? 0) + 1);
  }
  const sortedAgents = [...graphAgents.values()].sort((a, b) => a.agent.localeCompare(b.agent));

  return (
    <div class="page">
      <h1>Gossip</h1>
      <p class="status-line" role="status">
        {connected ? 'Live: new deliveries appear as they are stored.' : 'Connecting to the live feed…'}
      </p>
      <ErrorNotice error={streamError} what="The live feed" />
      <ErrorNotice error={agents.error} what="Listing agents" />
      <ErrorNotice error={recent.error} what="Reading recent gossip" />
      <Loading when={agents.loading && agents.data === undefined} />
      <div class="gossip">
        <figure class="graph-figure">
          <GossipGraph agents={sortedAgents} edges={edges} pulses={pulses} self={identity.agent} animate={animate} />
          <figcaption class="help">
            Each circle is an agent (filled: you), its number its live beacons; a line joins an author to an agent its memories reached,
            thicker with use; a dot runs along it for each delivery as it is stored.
          </figcaption>
        </figure>
        <section aria-labelledby="agents-heading" class="agents">
          <h2 id="agents-heading">Agents and beacons</h2>
          <ul>
            {(agents.data?.agents ?? []).map((agent) => (
              <li key={agent.agent}>
                <a href={href(`/inbox/${encodeURIComponent(agent.agent)}`)}>{agent.agent}</a>{' '}
                <span class="meta">
                  {agent.beacons.length} beacon{agent.beacons.length === 1 ? '' : 's'}
                </span>
                {agent.beacons.length === 0 ? null : (
                  <ul class="beacons">
                    {agent.beacons.map((beacon) => (
                      <li key={beacon.beacon_id}>
                        “{preview(beacon.text, 80)}” <span class="meta">{beacon.project ?? 'every project'} · threshold {beacon.threshold}</span>
                      </li>
                    ))}
                  </ul>
                )}
              </li>
            ))}
          </ul>
        </section>
      </div>
      <section aria-labelledby="log-heading">
        <h2 id="log-heading">Latest deliveries</h2>
        {log.length === 0 ? <p class="empty">Nothing gossiped yet.</p> : null}
        <ol class="event-log" aria-live="polite" aria-label="Deliveries, newest first">
          {log.map((event) => (
            <li key={eventId(event)}>
              <EventLine event={event} />
            </li>
          ))}
        </ol>
      </section>
    </div>
  );
}
