/**
 * `/v1/gossip`: who told whom, for people's tools (the web console). An admin key sees its tenant
 * within its project scope; any other key sees itself, its own beacons and its own inbox.
 * The live stream is `gossip-stream-route.ts`.
 */
import { gossipAgentsSchema, gossipEventsSchema, recentGossipInputSchema } from '../../core/console-schemas.js';
import { defineRoute, type RestRoute } from './rest-route.js';

export const gossipRoutes: readonly RestRoute[] = [
  defineRoute({
    method: 'GET',
    url: '/v1/gossip/agents',
    operationId: 'listGossipAgents',
    summary: "The tenant's agents (those with a key or a live beacon) and their live beacons; without the admin role, only yours",
    tag: 'gossip',
    schemas: {},
    success: { status: 200, description: 'Agents by name, each with its beacons', schema: gossipAgentsSchema },
    errors: [],
    async handle(facade, { principal }) {
      return { status: 200, payload: { agents: await facade.gossipAgents(principal) } };
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/v1/gossip/events',
    operationId: 'recentGossip',
    summary: "The newest deliveries (a diff and the agent it reached), newest first: the tenant's, or one recipient's; without the admin role, your own inbox's. Reading never drains an inbox",
    tag: 'gossip',
    schemas: { query: recentGossipInputSchema },
    success: { status: 200, description: 'Deliveries, newest first', schema: gossipEventsSchema },
    errors: [],
    async handle(facade, { principal, query }) {
      return { status: 200, payload: { events: await facade.recentGossip(principal, query) } };
    },
  }),
];
