/** `GET /v1/gossip/stream`: each delivery as it happens, from any replica, under the rules of GET /v1/gossip/events. */
import { gossipEventSchema, watchGossipInputSchema } from '../../core/console-schemas.js';
import { defineEventStreamRoute, type EventStreamRoute } from './event-stream-route.js';

export const GOSSIP_EVENT = 'gossip';

export const EVENT_STREAM_ROUTES: readonly EventStreamRoute[] = [
  defineEventStreamRoute({
    method: 'GET',
    url: '/v1/gossip/stream',
    operationId: 'watchGossip',
    summary:
      "Server-sent events: each delivery (a diff and the agent it reached) as it is stored — the tenant's, or one recipient's; without the admin role, your own inbox's. Live only; counts against the live-stream quotas",
    tag: 'gossip',
    schemas: { query: watchGossipInputSchema },
    event: { name: GOSSIP_EVENT, description: 'One delivery', schema: gossipEventSchema },
    errors: ['RATE_LIMITED'],
    open: (facade, { principal, query }, send) => facade.watchGossip(principal, query, send),
  }),
];
