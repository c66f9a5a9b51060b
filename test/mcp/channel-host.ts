/**
 * The official SDK client playing Claude Code for channel events: a handler for
 * `notifications/claude/channel` (content, meta), as a host registers one for the capability.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const ChannelNotificationSchema = z.object({
  method: z.literal('notifications/claude/channel'),
  params: z.object({ content: z.string(), meta: z.record(z.string(), z.string()) }),
});

export interface ChannelEventHeard {
  readonly content: string;
  readonly meta: Readonly<Record<string, string>>;
}

export interface ChannelHost {
  readonly events: ChannelEventHeard[];
  /** notifications/resources/list_changed heard (one per batch that created, promoted or deleted a cell). */
  listChanged: number;
  /** Registers the handlers on a client before it connects (the first event may come right after initialize). */
  readonly attach: (client: Client) => void;
}

export function channelHost(): ChannelHost {
  const host: ChannelHost = {
    events: [],
    listChanged: 0,
    attach(client) {
      client.setNotificationHandler(ChannelNotificationSchema, async (notification) => {
        host.events.push(notification.params);
      });
      client.setNotificationHandler(ResourceListChangedNotificationSchema, async () => {
        host.listChanged += 1;
      });
    },
  };
  return host;
}

/** What the events say in short: kind, then the node for a memory or the count for a digest. */
export function summary(host: ChannelHost): string[] {
  return host.events.map((event) => (event.meta.kind === 'digest' ? `digest:${event.meta.reason}:${event.meta.count}` : `memory:${event.meta.node_id}`));
}
