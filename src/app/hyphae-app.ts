/** What the composition root hands a command: one running Hyphae process and the parts it exposes. */
import type { KeyAdministration } from '../auth/key-administration.js';
import type { HyphaeConfig } from '../core/config.js';
import type { Embedder } from '../embed/embedder.js';
import type { Bus } from '../mesh/bus.js';
import type { LiveDiffFeed } from '../mesh/live-diff-feed.js';
import type { OutboxRelay } from '../mesh/outbox-relay.js';
import type { HyphaeMetrics } from '../metrics/index.js';
import type { ManagedMemoryFacade } from '../service/index.js';
import type { FacadeConfig } from '../service/facade-config.js';
import type { Db } from '../store/db.js';
import type { ReadinessCheck } from '../core/readiness.js';

export type { ReadinessCheck };

export interface HyphaeApp {
  readonly config: HyphaeConfig;
  /** The memory facade with its latencies and deliveries metered: what every surface calls. */
  readonly facade: ManagedMemoryFacade;
  /** Key administration without the facade's per-tenant admin check (bootstrap, operator tools, tests). */
  readonly keyAdmin: KeyAdministration;
  /** The open, migrated database (readiness, pool metrics; tests that seed or inspect rows). */
  readonly db: Db;
  /** The metered embedder the facade embeds with. */
  readonly embedder: Embedder;
  readonly bus: Bus;
  readonly relay: OutboxRelay;
  readonly feed: LiveDiffFeed;
  readonly metrics: HyphaeMetrics;
  readonly readiness: readonly ReadinessCheck[];
  /** Stops the background work, flushes recall hits and the outbox, then closes the bus, the embedder and the database. Idempotent. */
  close(): Promise<void>;
}

/**
 * What a caller already holds, used instead of what the configuration would open, and the timings
 * of the background loops: for tests and benches that run several replicas of this very process in
 * one. The app owns the parts from here and closes them.
 */
export interface HyphaeAppParts {
  readonly db?: Db;
  readonly bus?: Bus;
  readonly embedder?: Embedder;
  readonly relayPollMs?: number;
  readonly relayMaxBackoffMs?: number;
  readonly feedRefreshMs?: number;
  /** Embedded only: how often table growth and dead rows are checked (default 2 s). */
  readonly maintenanceCheckIntervalMs?: number;
  /** How long an authenticated key is trusted before it is looked up again (default 5 s). */
  readonly authCacheTtlMs?: number;
  /** Facade settings beyond the ones the configuration names. */
  readonly facade?: Partial<FacadeConfig>;
}

export interface HyphaeAppOptions {
  /** Names the process in the PGlite data-folder lock, e.g. "hyphae serve". */
  readonly command: string;
  /** Where background failures are reported (never stdout: stdio MCP owns it). */
  readonly onBackgroundError: (error: unknown) => void;
  readonly parts?: HyphaeAppParts;
}
