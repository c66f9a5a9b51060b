/** The memory facade as a process wires it: the configuration's slices, a clock and the mesh's hooks (serve, mcp, hook, tests). */
import type { HyphaeConfig } from '../core/config.js';
import type { Embedder } from '../embed/embedder.js';
import { createMemoryFacade, type ManagedMemoryFacade, type MemoryFacadeDeps } from '../service/index.js';
import type { FacadeConfig } from '../service/facade-config.js';
import type { Db } from '../store/db.js';

export interface FacadeWiring {
  readonly db: Db;
  readonly embedder: Embedder;
  readonly config: HyphaeConfig;
  readonly clock: () => Date;
  /** What the facade signals the gossip mesh through (mesh-wiring.ts); absent hooks signal nothing. */
  readonly hooks?: Partial<Pick<MemoryFacadeDeps, 'outbox' | 'diffFeed' | 'onBeaconsChanged'>>;
  readonly onBackgroundError?: (error: unknown) => void;
  /** How long an authenticated key is trusted before it is looked up again (default 5 s). */
  readonly authCacheTtlMs?: number;
  /** Facade settings beyond the ones the configuration names. */
  readonly facade?: Partial<FacadeConfig>;
}

export function createConfiguredFacade(wiring: FacadeWiring): ManagedMemoryFacade {
  const { config } = wiring;
  return createMemoryFacade({
    db: wiring.db,
    embedder: wiring.embedder,
    clock: wiring.clock,
    config: facadeConfigFrom(config, wiring.facade),
    ...wiring.hooks,
    ...(wiring.onBackgroundError === undefined ? {} : { onBackgroundError: wiring.onBackgroundError }),
    sources: config.sources,
    ...(wiring.authCacheTtlMs === undefined ? {} : { authCacheTtlMs: wiring.authCacheTtlMs }),
    ...(config.oauth === undefined ? {} : { oauth: config.oauth }),
  });
}

/** The facade's slices of the configuration (limits, inbox bounds, import spool, restatement), plus what the caller adds. */
function facadeConfigFrom(config: HyphaeConfig, extra: Partial<FacadeConfig> = {}): Partial<FacadeConfig> {
  const { maxInboxDiffs, diffRetentionDays } = config.gossip;
  const { restatementSimilarity, feedbackLearning, retentionDefaults } = config.cells;
  return {
    ...config.limits,
    maxInboxDiffs,
    diffRetentionDays,
    ...config.import,
    feedbackLearning,
    ...config.feedback,
    // Unset: the embedder's own similarity (defaultRestatementSimilarityFor).
    ...(restatementSimilarity === undefined ? {} : { restatementSimilarity }),
    retentionDefaults,
    ...extra,
  };
}
