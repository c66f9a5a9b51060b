/**
 * Live diffs over stdio: the agent's new diffs, written on stdout as the same
 * `notifications/hyphae/diff` JSON-RPC notifications GET /mcp streams. Nothing is written before
 * the first reply (the one to `initialize`), so a client never sees a notification first.
 */
import type { Diff } from '../core/entities.js';
import type { Principal } from '../core/principal.js';
import type { LiveSubscription, MemoryFacade } from '../service/memory-facade.js';
import { DIFF_NOTIFICATION_METHOD } from './live-stream.js';

export interface StdioLiveDiffs {
  /** The first reply is out: forward what was held and everything after. */
  ready(): void;
  close(): Promise<void>;
}

export function forwardLiveDiffs(
  facade: Pick<MemoryFacade, 'subscribeDiffs'>,
  principal: Principal,
  write: (line: string) => void,
): StdioLiveDiffs {
  const held: Diff[] = [];
  let live = false;
  const send = (diff: Diff): void => write(JSON.stringify({ jsonrpc: '2.0', method: DIFF_NOTIFICATION_METHOD, params: { diff } }));
  // A facade without a live feed answers UNAVAILABLE: stdio then simply has no push.
  const subscription: Promise<LiveSubscription | undefined> = Promise.resolve()
    .then(() => facade.subscribeDiffs(principal, (diff) => (live ? send(diff) : held.push(diff))))
    .catch(() => undefined);
  return {
    ready(): void {
      if (live) return;
      live = true;
      for (const diff of held.splice(0)) send(diff);
    },
    async close(): Promise<void> {
      await (await subscription)?.close();
    },
  };
}
