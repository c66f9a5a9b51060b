/** Tunables of the memory facade; every default is documented in docs/memory-model.md. */
import { INTROSPECTION_CACHE_MS } from '../auth/oauth/token-introspection.js';
import type { SearchMode } from '../core/cell-types.js';
import { DEFAULT_CONFIG, type HyphaeConfig } from '../core/config.js';
import type { RetentionDefaults } from '../core/expiry.js';
import { DEFAULT_ENERGY_TABLE, DEFAULT_PROMOTION_POLICY, type EnergyTable, type PromotionPolicy } from '../core/energy.js';

/** The facade's slices of the process configuration (src/core/config/memory-settings.ts, feedback-settings.ts): limits, inbox bounds, import spool, the recall log. */
type ConfiguredFacadeSettings = HyphaeConfig['limits'] & Pick<HyphaeConfig['gossip'], 'maxInboxDiffs' | 'diffRetentionDays'> & HyphaeConfig['import'] & HyphaeConfig['feedback'];

export interface FacadeConfig extends ConfiguredFacadeSettings {
  readonly energyTable: EnergyTable;
  readonly promotion: PromotionPolicy;
  /** Cosine similarity a beacon asks for when the caller gives none. */
  readonly defaultBeaconThreshold: number;
  /** The lowest threshold a beacon may ask for (lower would match nearly everything). */
  readonly minBeaconThreshold: number;
  /** R in reach = R · salience · w(type). */
  readonly reachFactor: number;
  /** How often batched recall hits are written (and promotion checked). */
  readonly hitFlushIntervalMs: number;
  /** Length budget of an extractive scene summary, in characters. */
  readonly summaryBudgetChars: number;
  /** How often open streams' keys are checked for a revocation made on another replica. */
  readonly streamRevocationCheckMs: number;
  /** How long an introspection answer is used: a request, and a stream opened with an opaque token, asks the issuer again after it. */
  readonly introspectionCacheMs: number;
  /** Nearest beacons a cell change is matched against at most (bounds one store's scan and fan-out). */
  readonly maxBeaconCandidates: number;
  /** Member cells get_scene lists and a consolidation summarizes at most: the scene's newest. */
  readonly maxSceneCells: number;
  /**
   * Cosine similarity at which a store that restates a current cell of its project and type
   * corroborates it instead of writing one (cells/restatement.ts); null turns restatement off.
   */
  readonly restatementSimilarity: number | null;
  /** The mode of a recall or query that names none. */
  readonly recallMode: SearchMode;
  /** Hybrid ranking: cosine similarity + identifier × (share of the query's identifiers a cell holds) + text × (share of its other terms, by rarity). */
  readonly hybridWeights: HybridWeights;
  /** Learning from ground truth (docs/feedback-learning.md): feedback records evidence and recall reads it; off, neither. */
  readonly feedbackLearning: boolean;
  /** Seconds a cell of a type is kept when its store names no expiry (HYPHAE_RETENTION_DEFAULTS); a type absent is kept. */
  readonly retentionDefaults: RetentionDefaults;
  /** The similarity of a query to learnt evidence below which the evidence gains nothing (defaultEvidenceSimilarityFor). */
  readonly evidenceSimilarity: number;
  /** Cells one transaction of a bulk erasure (agent, project, tenant, expiry) takes (docs/forgetting.md). */
  readonly erasureBatchCells: number;
  /** An erasure of at least this many cells vacuums the tables it deleted from when it is done (docs/forgetting.md). */
  readonly erasureVacuumCells: number;
  /** About how long one batch of a bulk erasure holds the connection (PGlite) or its inboxes; batches are sized to it (docs/forgetting.md). */
  readonly erasureBatchMs: number;
}

export interface HybridWeights {
  readonly identifier: number;
  readonly text: number;
}

const DEFAULT_FACADE_CONFIG: FacadeConfig = {
  ...DEFAULT_CONFIG.limits,
  maxInboxDiffs: DEFAULT_CONFIG.gossip.maxInboxDiffs,
  diffRetentionDays: DEFAULT_CONFIG.gossip.diffRetentionDays,
  ...DEFAULT_CONFIG.import,
  ...DEFAULT_CONFIG.feedback,
  energyTable: DEFAULT_ENERGY_TABLE,
  promotion: DEFAULT_PROMOTION_POLICY,
  defaultBeaconThreshold: 0.6,
  minBeaconThreshold: 0.2,
  reachFactor: 0.15,
  hitFlushIntervalMs: 1_000,
  summaryBudgetChars: 1_200,
  // The auth cache's TTL: a key revoked elsewhere stops everywhere within the same bound.
  streamRevocationCheckMs: 5_000,
  introspectionCacheMs: INTROSPECTION_CACHE_MS,
  maxBeaconCandidates: 4_096,
  maxSceneCells: 500,
  restatementSimilarity: null,
  recallMode: 'hybrid',
  hybridWeights: { identifier: 0.2, text: 0 },
  feedbackLearning: DEFAULT_CONFIG.cells.feedbackLearning,
  retentionDefaults: {},
  evidenceSimilarity: 0.5,
  erasureBatchCells: 100,
  erasureVacuumCells: 1_000,
  erasureBatchMs: 10,
};

/**
 * The default beacon threshold suits the embedder: use-lite scores even unrelated engineering
 * sentences around 0.45 and related ones 0.55–0.65; minilm scores unrelated ones ≤ 0.15 and a
 * beacon's topic 0.27–0.4; feature hashing scores only shared words, ~0.
 */
export function defaultBeaconThresholdFor(modelId: string): number {
  if (modelId.startsWith('hash')) return 0.4;
  if (modelId.startsWith('all-minilm')) return 0.3;
  return 0.6;
}

/**
 * The restatement similarity that suits the embedder, chosen on bench/near-duplicate-fixture.ts
 * (`npm run bench dedup` prints the confusion counts): the lowest of 0.75, 0.8 … 0.95 at least 0.05
 * above the fixture's most similar pair of distinct statements (minilm 0.76, use-lite 0.79) — a
 * false merge loses a statement, a missed one only leaves a duplicate. Feature hashing scores shared words, not meaning — its restatements (0.13–0.76)
 * overlap its distinct pairs (0–0.54) — so it merges nothing unless a similarity is set; so does a
 * model this table does not know.
 */
export function defaultRestatementSimilarityFor(modelId: string): number | null {
  if (modelId.startsWith('all-minilm')) return 0.85;
  if (modelId.startsWith('use-lite')) return 0.85;
  return null;
}

/**
 * The hybrid weights that suit the embedder, chosen on bench/recall-fixture.ts (`npm run bench
 * recall` sweeps them): a model of meaning already ranks the words a question shares with a memory,
 * and adding them again let near-miss memories that share the question's words overtake the answer,
 * so only identifiers add to it; feature hashing sees words without their rarity, and the rarity-
 * weighted terms rank better than its cosine. A model this table does not know is treated as one of meaning.
 */
export function defaultHybridWeightsFor(modelId: string): HybridWeights {
  if (modelId.startsWith('hash')) return { identifier: 1, text: 1 };
  return { identifier: 0.2, text: 0 };
}

/**
 * The evidence similarity that suits the embedder, chosen on bench/learning-fixture.ts (`npm run bench
 * learning`, docs/feedback-learning.md): about the 90th percentile of a question's similarity to the
 * nearest judged query of another need — questions resemble each other more than their answers
 * (use-lite most), so below it evidence lifts other needs' cells. A model this table does not know gets minilm's.
 */
export function defaultEvidenceSimilarityFor(modelId: string): number {
  if (modelId.startsWith('use-lite')) return 0.7;
  if (modelId.startsWith('hash')) return 0.4;
  return 0.5;
}

export function facadeConfig(overrides: Partial<FacadeConfig> = {}): FacadeConfig {
  return { ...DEFAULT_FACADE_CONFIG, ...overrides };
}
