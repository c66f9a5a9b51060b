/**
 * An agent's inbox: what gossip delivered to it, newest first, read without draining it (the agent's
 * own cursor never moves). Other agents' inboxes need an admin key.
 */
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { followEventStream } from '../api/event-stream.js';
import type { GossipEvent } from '../api/wire.js';
import { ErrorNotice, Loading } from '../components/notices.js';
import { useLoad } from '../components/use-load.js';
import { EventLine } from './gossip.js';
import { useSession } from '../session.js';

const PAGE = 100;

export function InboxPage({ agent }: { readonly agent: string | undefined }): JSX.Element {
  const { api, identity } = useSession();
  const recipient = agent ?? identity.agent;
  const loaded = useLoad(() => api.get<{ events: readonly GossipEvent[] }>('/v1/gossip/events', { recipient, limit: PAGE }), [recipient]);
  const [live, setLive] = useState<readonly GossipEvent[]>([]);

  useEffect(() => {
    setLive([]);
    const abort = new AbortController();
    followEventStream(
      api,
      `/v1/gossip/stream?recipient=${encodeURIComponent(recipient)}`,
      {
        onEvent(message) {
          if (message.event !== 'gossip') return;
          const event = JSON.parse(message.data) as GossipEvent;
          setLive((previous) => [event, ...previous].slice(0, PAGE));
        },
        onStatus(open) {
          if (open) loaded.reload();
        },
      },
      abort.signal,
    );
    return () => abort.abort();
  }, [api, recipient, loaded.reload]);

  const seen = new Set(live.map((event) => event.diff.diff_id));
  const events = [...live, ...(loaded.data?.events ?? []).filter((event) => !seen.has(event.diff.diff_id))];
  return (
    <div class="page">
      <h1>Inbox of {recipient}</h1>
      <p class="help">What gossip delivered to {recipient}, newest first. Reading it here does not drain it.</p>
      <Loading when={loaded.loading && loaded.data === undefined} />
      <ErrorNotice error={loaded.error} what="Reading the inbox" />
      {loaded.data !== undefined && events.length === 0 ? <p class="empty">Nothing was delivered to {recipient} yet.</p> : null}
      <ol class="event-log" aria-label={`Inbox of ${recipient}`}>
        {events.map((event) => (
          <li key={event.diff.diff_id}>
            <EventLine event={event} />
          </li>
        ))}
      </ol>
    </div>
  );
}
