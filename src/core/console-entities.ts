/** What the routes made for people's tools (the web console) answer; their schemas are in console-schemas.ts. */
import type { Role } from './cell-types.js';
import type { Beacon, Diff } from './entities.js';

/** The caller, as its key makes it: what the console may show and offer. */
export interface Identity {
  readonly tenant: string;
  readonly agent: string;
  readonly key_id: string;
  readonly roles: readonly Role[];
  readonly projects: readonly string[];
  readonly default_project: string;
  readonly trust: number;
}

/** One gossip delivery: a diff about a cell by `diff.source_agent`, written to `recipient_agent`'s inbox. */
export interface GossipEvent {
  readonly recipient_agent: string;
  readonly diff: Diff;
}

/** An agent of the tenant and its live beacons, as far as the caller's key may see them. */
export interface GossipAgent {
  readonly agent: string;
  readonly beacons: readonly Beacon[];
}

export type QuotaName = 'cells_per_tenant' | 'beacons_per_agent' | 'open_sessions_per_agent' | 'live_streams_per_key' | 'live_streams_per_process';

/** One quota: what is used against its limit, for a scope (`tenant`, `agent:<name>`, `this key`, `process`). */
export interface QuotaUsage {
  readonly quota: QuotaName;
  readonly scope: string;
  readonly used: number;
  readonly limit: number;
}
