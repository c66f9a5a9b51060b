/**
 * What the routes made for people's tools (the web console) answer: the output type of each schema
 * in console-schemas.ts, read-only like every wire shape (entities.ts).
 */
import type { gossipAgentSchema, gossipEventSchema, identitySchema, quotaUsageSchema } from './console-schemas.js';
import type { Output } from './entities.js';

/** The caller, as its key makes it: what the console may show and offer. */
export type Identity = Output<typeof identitySchema>;

/** One gossip delivery: a diff about a cell by `diff.source_agent`, written to `recipient_agent`'s inbox. */
export type GossipEvent = Output<typeof gossipEventSchema>;

/** An agent of the tenant and its live beacons, as far as the caller's key may see them. */
export type GossipAgent = Output<typeof gossipAgentSchema>;

/** One quota: what is used against its limit, for a scope (`tenant`, `agent:<name>`, `this key`, `process`). */
export type QuotaUsage = Output<typeof quotaUsageSchema>;

/**
 * `GET /console/oauth.json`: what the console needs to sign in through the identity provider
 * (authorization code with PKCE as a public client), the provider's endpoints discovered by the server.
 */
export interface ConsoleSignInDocument {
  readonly enabled: true;
  readonly issuer: string;
  readonly client_id: string;
  readonly scope: string;
  readonly resource: string;
  readonly redirect_uri: string;
  readonly authorization_endpoint: string;
  readonly token_endpoint: string;
}

/** `GET /console/oauth.json` when the console signs in with API keys only. */
export interface ConsoleKeysOnly {
  readonly enabled: false;
}
