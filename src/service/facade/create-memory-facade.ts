/**
 * The memory facade (../memory-facade.ts) over PostgreSQL + pgvector, assembled from one module
 * per concern around one FacadeContext. Every operation checks the principal's role first
 * (operation-roles.ts), re-validates its input, and scopes every statement by the principal's
 * tenant; a foreign id, or one outside the principal's project scope, reads as NOT_FOUND.
 */
import { directExpiryEraser } from '../cells/expiry-eraser.js';
import { sweepExpired, type ExpirySweep } from '../cells/expiry-sweep.js';
import { createKeyAdministration, type KeyAdministration } from '../../auth/key-administration.js';
import { KeyAuthenticator } from '../../auth/key-authenticator.js';
import { TokenPrincipals } from '../../auth/oauth/token-principals.js';
import { UnauthenticatedError, UnavailableError } from '../../core/errors.js';
import type { OAuthConfig } from '../../core/oauth-config.js';
import type { Embedder } from '../../embed/embedder.js';
import { revokedKeyIds } from '../../store/key-repository.js';
import type { Db } from '../../store/db.js';
import { toVectorParam } from '../../store/vector-param.js';
import type { DiffFeed } from '../gossip/diff-feed.js';
import { createErasure, type Erasure } from '../erasure/erasure.js';
import { erasureOperations } from '../erasure/erasure-operations.js';
import { toMemoryNode } from './entity-mapping.js';
import { ExtractiveSceneSummarizer } from '../sessions/extractive-scene-summarizer.js';
import { defaultBeaconThresholdFor, defaultHybridWeightsFor, defaultEvidenceSimilarityFor, defaultRestatementSimilarityFor, facadeConfig, type FacadeConfig } from '../facade-config.js';
import { GossipWriter, type OutboxSignal } from '../gossip/gossip-writer.js';
import { HitRecorder } from '../recall/hit-recorder.js';
import { LiveStreamRegistry } from '../gossip/live-stream-registry.js';
import type { MemoryFacade } from '../memory-facade.js';
import type { SceneSummarizer } from '../sessions/scene-summarizer.js';
import { SessionScopes } from '../sessions/session-scope.js';
import { BeaconPresence } from '../gossip/beacon-presence.js';
import { StoreStamps } from '../cells/store-stamps.js';
import { TenantQuotas } from './tenant-quotas.js';
import { StatisticsCache } from '../recall/statistics-cache.js';
import { readCellStatistics } from '../../store/cell-statistics.js';
import { readTermStatistics } from '../../store/term-statistics.js';
import { beaconOperations } from '../gossip/beacons.js';
import { cellReadOperations } from '../recall/cell-reads.js';
import { cellWriteOperations, promoteHitCells } from '../cells/cell-writes.js';
import { channelOperations } from '../channel/channel.js';
import { consoleViewOperations } from '../console/console-views.js';
import type { FacadeContext } from './facade-context.js';
import { inboxFeedOperations } from '../gossip/inbox-feed.js';
import { keyOperations } from '../keys/keys.js';
import { IMPORT_MAX_BYTES, portabilityOperations } from '../portability/portability.js';
import { ImportSpool } from '../portability/import-spool.js';
import { enforceRoles } from './operation-roles.js';
import { resourceSubscriptionOperations } from '../gossip/resource-subscriptions.js';
import { sessionSceneOperations } from '../sessions/sessions-scenes.js';
import { createSourceOperations } from '../sources/sources.js';
import type { SourceIngestionConfig } from '../sources/source-ingestion-runner.js';
import { relationOperations } from '../relations/relation-operations.js';
import { subgraphOperations } from '../relations/subgraph.js';
import { sourceCatalogOperations } from '../sources/source-catalog.js';
import { feedbackOperations } from '../feedback/feedback-operations.js';
import { feedbackQualityOperations } from '../feedback/feedback-quality.js';
import type { FeedbackLearner } from '../feedback/feedback-learner.js';
import { createEvidenceLearner } from '../feedback/evidence-learner.js';

export interface MemoryFacadeDeps {
  readonly db: Db;
  readonly embedder: Embedder;
  readonly config?: Partial<FacadeConfig>;
  /** Time of record for cells and beacons, energy and TTLs; injectable for tests. */
  readonly clock?: () => Date;
  /** Woken after diffs commit (the outbox relay). */
  readonly outbox?: OutboxSignal;
  /** Live push; without it subscribeDiffs is UNAVAILABLE. */
  readonly diffFeed?: DiffFeed;
  /** Told when an agent's beacons change, so a replica streaming to it can catch up at once. */
  readonly onBeaconsChanged?: (tenantId: string, agent: string) => void;
  readonly summarizer?: SceneSummarizer;
  readonly authCacheTtlMs?: number;
  /** Accept OAuth access tokens of this issuer beside API keys; absent: keys only. */
  readonly oauth?: OAuthConfig;
  /** Failures of background work (hit flushes, promotion). */
  readonly onBackgroundError?: (error: unknown) => void;
  /** Limits and timing of source ingestion (docs/sources.md); defaults: DEFAULT_SOURCE_INGESTION_CONFIG. */
  readonly sources?: Partial<SourceIngestionConfig>;
  /** Told each feedback with ground truth once it has committed (docs/feedback.md); absent: nothing learns from feedback. */
  readonly feedbackLearner?: FeedbackLearner;
}

/** The facade plus what its owner (the runtime, tests) controls. */
export interface ManagedMemoryFacade extends MemoryFacade {
  readonly config: FacadeConfig;
  readonly keyAdmin: KeyAdministration;
  /** Writes batched recall hits now and runs the promotion check. */
  flushHits(): Promise<void>;
  /** Live streams open through this facade (the per-process quota counts them). */
  readonly openLiveStreams: number;
  /** One expiry sweep: what has expired is erased, tenant by tenant (docs/expiry.md); maintenance runs it on a timer. */
  sweepExpired(): Promise<ExpirySweep>;
  /** Flushes hits and stops the flush timer; the db and embedder belong to the caller. */
  close(): Promise<void>;
}

export function createMemoryFacade(deps: MemoryFacadeDeps): ManagedMemoryFacade {
  const ctx = createFacadeContext(deps);
  const sources = createSourceOperations(ctx, deps.sources, deps.onBackgroundError);
  const operations = enforceRoles({
    ...cellWriteOperations(ctx),
    ...cellReadOperations(ctx),
    ...sessionSceneOperations(ctx),
    ...beaconOperations(ctx),
    ...inboxFeedOperations(ctx),
    ...channelOperations(ctx),
    ...resourceSubscriptionOperations(ctx),
    ...keyOperations(ctx),
    ...portabilityOperations(ctx),
    ...consoleViewOperations(ctx),
    ...sources.operations,
    ...relationOperations(ctx),
    ...subgraphOperations(ctx),
    ...sourceCatalogOperations(ctx),
    ...feedbackOperations(ctx, deps.feedbackLearner ?? evidenceLearnerOf(ctx), deps.onBackgroundError),
    ...feedbackQualityOperations(ctx),
    ...erasureOperations(ctx),
  });
  return {
    ...operations,
    config: ctx.config,
    keyAdmin: ctx.keyAdmin,
    authenticate: (apiKey) => ctx.authenticator.authenticate(apiKey),
    authenticateBearer: (token) => (ctx.tokenPrincipals === undefined ? Promise.reject(new UnauthenticatedError()) : ctx.tokenPrincipals.authenticate(token)),
    flushHits: () => ctx.hits.flush(),
    sweepExpired: () => sweepExpired(ctx.db, directExpiryEraser(ctx)),
    get openLiveStreams(): number {
      return ctx.streams.openStreams;
    },
    async close(): Promise<void> {
      await sources.runner.close();
      await ctx.streams.closeAll();
      await ctx.importSpool.close();
      await ctx.hits.close();
      await Promise.all([ctx.termStatistics.settled(), ctx.cellStatistics.settled()]);
    },
  };
}

/** Builds the context and starts its hit-flush timer (close() stops it). */
function createFacadeContext(deps: MemoryFacadeDeps): FacadeContext {
  const { db, embedder } = deps;
  const config = facadeConfig({
    defaultBeaconThreshold: defaultBeaconThresholdFor(embedder.modelId),
    restatementSimilarity: defaultRestatementSimilarityFor(embedder.modelId),
    hybridWeights: defaultHybridWeightsFor(embedder.modelId),
    evidenceSimilarity: defaultEvidenceSimilarityFor(embedder.modelId),
    ...deps.config,
  });
  const clock = deps.clock ?? ((): Date => new Date());
  const reportError = deps.onBackgroundError ?? ((): void => undefined);
  const hits = new HitRecorder(db, { clock, onFlushed: (rows) => promoteHitCells(ctx, rows), onError: reportError });
  // The embedded folder's lock makes this process the database's only writer: what it remembers stays true.
  const ownsDatabase = db.driver === 'pglite';
  const ctx: FacadeContext = {
    db,
    config,
    clock,
    keyAdmin: createKeyAdministration(db),
    importSpool: new ImportSpool({
      dir: config.importSpoolDir,
      maxBytesPerImport: IMPORT_MAX_BYTES,
      maxBytesPerTenant: config.maxImportSpoolBytesPerTenant,
      maxBytesTotal: config.maxImportSpoolBytes,
    }),
    authenticator: new KeyAuthenticator(db, deps.authCacheTtlMs === undefined ? {} : { cacheTtlMs: deps.authCacheTtlMs }),
    tokenPrincipals:
      deps.oauth === undefined
        ? undefined
        : new TokenPrincipals(db, deps.oauth, {
            introspectionCacheMs: config.introspectionCacheMs,
            ...(deps.authCacheTtlMs === undefined ? {} : { cacheTtlMs: deps.authCacheTtlMs }),
          }),
    gossip: new GossipWriter({
      reachFactor: config.reachFactor,
      energyTable: config.energyTable,
      maxInboxDiffs: config.maxInboxDiffs,
      maxBatch: config.maxBeaconCandidates,
      presence: new BeaconPresence(ownsDatabase),
    }),
    scopes: new SessionScopes(ownsDatabase),
    stamps: new StoreStamps(clock, ownsDatabase),
    quotas: new TenantQuotas(config),
    summarizer: deps.summarizer ?? new ExtractiveSceneSummarizer(embedder, config.summaryBudgetChars),
    streams: new LiveStreamRegistry({
      perKey: config.maxStreamsPerKey,
      perProcess: config.maxStreamsPerProcess,
      revokedAmong: (keyIds) => revokedKeyIds(db, keyIds),
      revocationCheckMs: config.streamRevocationCheckMs,
      onError: reportError,
    }),
    hits,
    termStatistics: new StatisticsCache(() => readTermStatistics(db), reportError),
    cellStatistics: new StatisticsCache(() => readCellStatistics(db), reportError),
    diffFeed: deps.diffFeed,
    embedder,
    embed: async (text) => {
      const [vector] = await embedder.embed([text]);
      if (vector === undefined) throw new UnavailableError('the embedder returned no vector');
      return toVectorParam(vector);
    },
    node: (row) => toMemoryNode(row, clock(), config.energyTable),
    diffsCommitted: (diffs) => {
      if (diffs.length > 0) deps.outbox?.diffsCommitted(diffs);
    },
    beaconsChanged: (tenantId, agent) => deps.onBeaconsChanged?.(tenantId, agent),
    get erasure(): Erasure {
      return erasure;
    },
  };
  const erasure = createErasure(ctx, { batchCells: config.erasureBatchCells, batchMs: config.erasureBatchMs, vacuumCells: config.erasureVacuumCells, onError: reportError });
  hits.start(config.hitFlushIntervalMs);
  return ctx;
}

/** With learning on, what feedback teaches becomes evidence recall reads (docs/feedback-learning.md); off, the facade has no learner. */
function evidenceLearnerOf(ctx: FacadeContext): FeedbackLearner | undefined {
  if (!ctx.config.feedbackLearning) return undefined;
  return createEvidenceLearner({ db: ctx.db, clock: ctx.clock, embeddingModel: ctx.embedder.modelId, enabled: true });
}
