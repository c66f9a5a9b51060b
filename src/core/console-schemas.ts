/**
 * Requests and answers of the routes made for people's tools (the web console): who a key is, the
 * tenant's agents and beacons, who told whom, quotas in use. One schema validates and documents each.
 */
import { z } from 'zod';
import { ROLES } from './cell-types.js';
import { beaconSchema, diffSchema } from './output-schemas.js';
import { agentNameSchema } from './schemas.js';

const QUOTA_NAMES = [
  'cells_per_tenant',
  'beacons_per_agent',
  'open_sessions_per_agent',
  'live_streams_per_key',
  'live_streams_per_process',
] as const;

export const recentGossipInputSchema = z.strictObject({
  recipient: agentNameSchema.optional().describe('Only deliveries to this agent; a key without the admin role may name only its own agent (the default)'),
  limit: z.int().min(1).max(200).default(50),
});

export const watchGossipInputSchema = z.strictObject({
  recipient: agentNameSchema.optional().describe('Only deliveries to this agent; a key without the admin role may name only its own agent (the default)'),
});

export const identitySchema = z
  .strictObject({
    tenant: z.string(),
    agent: z.string(),
    key_id: z.uuid(),
    roles: z.array(z.enum(ROLES)),
    projects: z.array(z.string()).describe('Projects the key reads and writes; ["*"] is every project'),
    default_project: z.string(),
    trust: z.number().min(0).max(1),
  })
  .describe('The caller, as its key makes it');

export const gossipEventSchema = z
  .strictObject({
    recipient_agent: z.string().describe('Whose inbox the diff was written to'),
    diff: diffSchema,
  })
  .describe("One delivery: a diff about a cell by diff.source_agent, in recipient_agent's inbox");

export const gossipEventsSchema = z.strictObject({ events: z.array(gossipEventSchema).describe('Newest first') });

export const gossipAgentSchema = z.strictObject({
  agent: z.string(),
  beacons: z.array(beaconSchema).describe('Its live beacons the caller may see'),
});

export const gossipAgentsSchema = z.strictObject({ agents: z.array(gossipAgentSchema) });

export const quotaUsageSchema = z.strictObject({
  quota: z.enum(QUOTA_NAMES),
  scope: z.string().describe('`tenant`, `agent:<name>`, `this key` or `process`'),
  used: z.int().min(0),
  limit: z.int().min(1),
});

export const quotaUsageListSchema = z.strictObject({ quotas: z.array(quotaUsageSchema) });

export type RecentGossipInput = z.input<typeof recentGossipInputSchema>;
export type WatchGossipInput = z.input<typeof watchGossipInputSchema>;
