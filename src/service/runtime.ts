/**
 * The running core of one Hyphae process: database (PGlite folder or PostgreSQL), migrations
 * checked against the embedder's identity, the memory facade, key administration and the
 * background timers (hit flushes, retention). Surfaces (serve, mcp, worker) build on it.
 */
import type { KeyAdministration } from '../auth/key-administration.js';
import type { EmbedderKind } from '../core/config.js';
import { createEmbedder } from '../embed/create-embedder.js';
import type { Embedder } from '../embed/embedder.js';
import { startRetention, type RetentionTimer } from '../mesh/retention.js';
import type { Db } from '../store/db.js';
import { pingDatabase } from '../store/database-probe.js';
import { migrate } from '../store/migrator.js';
import { openDb } from '../store/open-db.js';
import type { IterativeScanMode, KnnSettings } from '../store/knn-session.js';
import { analyzeMemoryTables, vacuumMemoryTables } from '../store/statistics-repository.js';
import { createMemoryFacade, type ManagedMemoryFacade, type MemoryFacadeDeps } from './create-memory-facade.js';
import { startEmbeddedMaintenance } from './embedded-maintenance.js';
import type { FacadeConfig } from './facade-config.js';

/** The part of the process configuration (src/core/config.ts) the core needs; HyphaeConfig satisfies it. */
export interface RuntimeConfig {
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  readonly dbPoolMax?: number;
  readonly dbAcquireTimeoutMs?: number;
  readonly dbStatementTimeoutMs?: number;
  readonly dbHnswEfSearch?: number | undefined;
  readonly dbHnswIterativeScan?: IterativeScanMode | undefined;
  readonly dbHnswMaxScanTuples?: number | undefined;
  readonly embedder: EmbedderKind;
  readonly embedUrl?: string | undefined;
  readonly embedModel?: string | undefined;
  readonly embedApiKey?: string | undefined;
  readonly natsUrl?: string | undefined;
  readonly diffRetentionDays: number;
}

/** What the gossip mesh (bus, outbox relay, live feed) plugs into the facade; built once the db is open. */
export interface MeshHooks {
  readonly outbox?: MemoryFacadeDeps['outbox'];
  readonly diffFeed?: MemoryFacadeDeps['diffFeed'];
  readonly onBeaconsChanged?: MemoryFacadeDeps['onBeaconsChanged'];
  close?(): Promise<void>;
}

export interface RuntimeOptions {
  /** Names this process in the PGlite data-folder lock, e.g. "hyphae serve". */
  readonly command?: string;
  /** A ready embedder instead of one built from the configuration. */
  readonly embedder?: Embedder;
  /** An open database instead of the configured one (tests running several replicas in one process); closed with the runtime. */
  readonly db?: Db;
  /** How long an authenticated key is trusted before it is looked up again (default 5 s). */
  readonly authCacheTtlMs?: number;
  readonly facade?: Partial<FacadeConfig>;
  readonly mesh?: (db: Db) => Promise<MeshHooks>;
  readonly retentionIntervalMs?: number;
  /** Embedded (PGlite) only: how often every table's planner statistics are refreshed. */
  readonly analyzeIntervalMs?: number;
  /** Embedded (PGlite) only: how often table growth and dead rows are checked, so tables are analyzed and vacuumed as autovacuum would. */
  readonly maintenanceCheckIntervalMs?: number;
  readonly clock?: () => Date;
  readonly onBackgroundError?: (error: unknown) => void;
}

export interface HyphaeRuntime {
  readonly db: Db;
  readonly embedder: Embedder;
  readonly facade: ManagedMemoryFacade;
  readonly keyAdmin: KeyAdministration;
  readonly retention: RetentionTimer;
  /** Resolves when the database answers (readiness). */
  ping(): Promise<void>;
  /** Flushes recall hits, stops the timers, then closes the mesh, the embedder and the database. */
  close(): Promise<void>;
}

const DEFAULT_RETENTION_INTERVAL_MS = 3_600_000;
const DEFAULT_ANALYZE_INTERVAL_MS = 300_000;
const DEFAULT_MAINTENANCE_CHECK_INTERVAL_MS = 2_000;

export async function createRuntime(config: RuntimeConfig, options: RuntimeOptions = {}): Promise<HyphaeRuntime> {
  const embedder =
    options.embedder ??
    (await createEmbedder({
      kind: config.embedder,
      ...(config.embedUrl === undefined ? {} : { url: config.embedUrl }),
      ...(config.embedModel === undefined ? {} : { model: config.embedModel }),
      ...(config.embedApiKey === undefined ? {} : { apiKey: config.embedApiKey }),
      ...(config.natsUrl === undefined ? {} : { natsUrl: config.natsUrl }),
    }));
  let db: Db | undefined;
  try {
    db =
      options.db ??
      (await openDb({
        dataDir: config.dataDir,
        ...(config.databaseUrl === undefined ? {} : { databaseUrl: config.databaseUrl }),
        ...(options.command === undefined ? {} : { command: options.command }),
        ...databasePoolSettings(config),
      }));
    await migrate(db, { modelId: embedder.modelId, dimension: embedder.dimension });
    const mesh = options.mesh === undefined ? {} : await options.mesh(db);
    const clock = options.clock ?? ((): Date => new Date());
    const facade = createMemoryFacade({
      db,
      embedder,
      clock,
      config: { diffRetentionDays: config.diffRetentionDays, ...options.facade },
      ...(mesh.outbox === undefined ? {} : { outbox: mesh.outbox }),
      ...(mesh.diffFeed === undefined ? {} : { diffFeed: mesh.diffFeed }),
      ...(mesh.onBeaconsChanged === undefined ? {} : { onBeaconsChanged: mesh.onBeaconsChanged }),
      ...(options.onBackgroundError === undefined ? {} : { onBackgroundError: options.onBackgroundError }),
      ...(options.authCacheTtlMs === undefined ? {} : { authCacheTtlMs: options.authCacheTtlMs }),
    });
    const retention = startRetention(db, {
      diffRetentionDays: facade.config.diffRetentionDays,
      intervalMs: options.retentionIntervalMs ?? DEFAULT_RETENTION_INTERVAL_MS,
      clock,
      ...(options.onBackgroundError === undefined ? {} : { onError: options.onBackgroundError }),
    });
    const opened = db;
    const maintenance =
      opened.driver === 'pglite'
        ? startEmbeddedMaintenance(opened, {
            checkIntervalMs: options.maintenanceCheckIntervalMs ?? DEFAULT_MAINTENANCE_CHECK_INTERVAL_MS,
            fullIntervalMs: options.analyzeIntervalMs ?? DEFAULT_ANALYZE_INTERVAL_MS,
            ...(options.onBackgroundError === undefined ? {} : { onError: options.onBackgroundError }),
          })
        : undefined;
    // Dead rows and statistics now. PGlite keeps no table statistics across a restart, so the
    // maintenance would not see the dead rows left before it; a vacuum that finds none costs ~20 ms
    // at 10k cells. The statistics let a restarted server plan kNN on the HNSW indexes at once.
    if (opened.driver === 'pglite') {
      await vacuumMemoryTables(opened);
      await analyzeMemoryTables(opened);
    }
    let closing: Promise<void> | undefined;
    return {
      db: opened,
      embedder,
      facade,
      keyAdmin: facade.keyAdmin,
      retention,
      ping: () => pingDatabase(opened),
      close(): Promise<void> {
        closing ??= (async (): Promise<void> => {
          try {
            await maintenance?.stop();
            await facade.close();
            await retention.stop();
            await mesh.close?.();
          } finally {
            await embedder.close();
            await opened.close();
          }
        })();
        return closing;
      },
    };
  } catch (error) {
    await db?.close().catch(() => undefined);
    await embedder.close().catch(() => undefined);
    throw error;
  }
}

/** The database settings of the configuration, as openDb takes them: the pool (PostgreSQL only) and the HNSW scan (both). */
export function databasePoolSettings(
  config: Pick<RuntimeConfig, 'dbPoolMax' | 'dbAcquireTimeoutMs' | 'dbStatementTimeoutMs' | 'dbHnswEfSearch' | 'dbHnswIterativeScan' | 'dbHnswMaxScanTuples'>,
): {
  poolMax?: number;
  acquireTimeoutMs?: number;
  statementTimeoutMs?: number;
  knn: Partial<KnnSettings>;
} {
  return {
    knn: {
      ...(config.dbHnswEfSearch === undefined ? {} : { efSearch: config.dbHnswEfSearch }),
      ...(config.dbHnswIterativeScan === undefined ? {} : { iterativeScan: config.dbHnswIterativeScan }),
      ...(config.dbHnswMaxScanTuples === undefined ? {} : { maxScanTuples: config.dbHnswMaxScanTuples }),
    },
    ...(config.dbPoolMax === undefined ? {} : { poolMax: config.dbPoolMax }),
    ...(config.dbAcquireTimeoutMs === undefined ? {} : { acquireTimeoutMs: config.dbAcquireTimeoutMs }),
    ...(config.dbStatementTimeoutMs === undefined ? {} : { statementTimeoutMs: config.dbStatementTimeoutMs }),
  };
}
