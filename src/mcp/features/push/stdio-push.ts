/**
 * The push over stdio, the same one GET /mcp streams: `notifications/resources/updated` for
 * what the session subscribed to, `notifications/resources/list_changed`, and
 * `notifications/hyphae/diff` when the client declared the experimental `hyphae/diffs`
 * capability — and, when the entry offers it, Claude Code's `notifications/claude/channel`, whose
 * session (channel-session.ts) starts with the first reply: what arrived while away, then each
 * memory. Nothing is written before the first reply (the one to `initialize`), so a client never
 * sees a notification first. Its frames go through a live stream whose sink is stdout's line writer
 * (no heartbeat or byte bound: a pipe has no idle proxy, and the process's output is its own).
 */
import type { Diff } from '../../../core/entities.js';
import type { Principal } from '../../../core/principal.js';
import type { LiveSubscription, MemoryFacade } from '../../../service/memory-facade.js';
import { LiveStream, type StreamSink } from '../../../surface-shared/index.js';
import { diffNotification } from '../../protocol/diff-extension.js';
import type { SessionSubscriptions } from '../resources/session-subscriptions.js';
import { ResourceNotifier } from './resource-notifications.js';
import type { ChannelFacade, ChannelSettings } from './channel-session.js';
import { ChannelSession } from './channel-session.js';

export interface StdioPush {
  /** The first handshake-revision reply is out: forward what was held and everything after. */
  ready(): void;
  /** A stateless request came before any handshake reply: stop holding diffs for a session that may never begin. */
  idle(): void;
  close(): Promise<void>;
}

/** What the pushes depend on: read when a diff lands, since initialize sets wantsDiffs. */
export interface StdioPushSession {
  readonly wantsDiffs?: boolean;
  readonly subscriptions?: SessionSubscriptions;
}

/** stdout as a stream's sink: each frame one line; the process owns the pipe, so ending it is not the stream's. */
function lineSink(write: (line: string) => void): StreamSink {
  let ended = false;
  return {
    write,
    unsentBytes: 0,
    get ended(): boolean {
      return ended;
    },
    end: () => {
      ended = true;
    },
    destroy: () => undefined,
  };
}

export function startStdioPush(
  facade: Pick<MemoryFacade, 'subscribeDiffs'> & ChannelFacade,
  principal: Principal,
  write: (line: string) => void,
  session: StdioPushSession,
  onError?: (error: unknown) => void,
  channelSettings?: ChannelSettings,
): StdioPush {
  const stream = new LiveStream({});
  // Diffs, not frames, wait for the first reply: how each is told depends on what initialize declared.
  const held: Diff[] = [];
  let live = false;
  let holding = true;
  const wantsDiffs = (): boolean => session.wantsDiffs === true;
  const notifiers = new Map<boolean, ResourceNotifier>();
  const notifierFor = (diffs: boolean): ResourceNotifier => {
    let notifier = notifiers.get(diffs);
    if (notifier === undefined) {
      notifier = new ResourceNotifier(
        () => session.subscriptions?.current() ?? Promise.resolve(new Set<string>()),
        (messages) => {
          for (const message of messages) stream.send(JSON.stringify(message));
        },
        { listChanged: !diffs },
        onError,
      );
      notifiers.set(diffs, notifier);
    }
    return notifier;
  };
  let channel: ChannelSession | undefined;
  const send = (diff: Diff): void => {
    const diffs = wantsDiffs();
    if (diffs) stream.send(JSON.stringify(diffNotification(diff)));
    notifierFor(diffs).push(diff);
    channel?.push(diff);
  };
  // A facade without a live feed answers UNAVAILABLE: stdio then simply has no push.
  const subscription: Promise<LiveSubscription | undefined> = Promise.resolve()
    .then(() =>
      facade.subscribeDiffs(principal, (diff) => {
        if (live) send(diff);
        else if (holding) held.push(diff);
      }),
    )
    .catch(() => undefined);
  return {
    ready(): void {
      if (live) return;
      live = true;
      stream.start(lineSink(write));
      if (channelSettings !== undefined) {
        channel = new ChannelSession({
          facade,
          principal,
          settings: channelSettings,
          send: (notification) => stream.send(JSON.stringify(notification)),
          ...(onError === undefined ? {} : { onError }),
        });
        channel.start();
      }
      for (const diff of held.splice(0)) send(diff);
    },
    idle(): void {
      if (live) return;
      holding = false;
      held.length = 0;
    },
    async close(): Promise<void> {
      for (const notifier of notifiers.values()) notifier.close();
      await (await subscription)?.close();
      await channel?.close();
      // Last: what the channel's queue still sends while it closes goes out, as before.
      stream.close();
    },
  };
}
