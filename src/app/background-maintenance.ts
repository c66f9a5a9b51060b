/**
 * The background upkeep of a server's database: diff, beacon and recall-log retention, and for the embedded
 * PGlite folder (which has no autovacuum) the statistics and vacuum passes autovacuum would run.
 */
import { startRetention } from '../mesh/retention.js';
import { startEmbeddedMaintenance } from '../store/embedded-maintenance.js';
import type { Db } from '../store/db.js';
import { analyzeMemoryTables, vacuumMemoryTables } from '../store/statistics-repository.js';

const RETENTION_INTERVAL_MS = 3_600_000;
/** How often expired items are erased: each is physically gone within this of its expiry, plus the pass itself (docs/expiry.md). */
export const EXPIRY_SWEEP_INTERVAL_MS = 60_000;
const ANALYZE_INTERVAL_MS = 300_000;
const DEFAULT_MAINTENANCE_CHECK_INTERVAL_MS = 2_000;

export interface BackgroundMaintenanceOptions {
  readonly diffRetentionDays: number;
  readonly recallLogRetentionDays: number;
  readonly clock: () => Date;
  readonly onError: (error: unknown) => void;
  /** Embedded only: how often table growth and dead rows are checked. */
  readonly maintenanceCheckIntervalMs?: number;
  /** The facade's expiry sweep, run every EXPIRY_SWEEP_INTERVAL_MS (or this interval). */
  readonly sweepExpired?: () => Promise<unknown>;
  readonly expirySweepIntervalMs?: number;
}

export interface BackgroundMaintenance {
  stop(): Promise<void>;
}

export async function startBackgroundMaintenance(db: Db, options: BackgroundMaintenanceOptions): Promise<BackgroundMaintenance> {
  const retention = startRetention(db, {
    diffRetentionDays: options.diffRetentionDays,
    recallLogRetentionDays: options.recallLogRetentionDays,
    intervalMs: RETENTION_INTERVAL_MS,
    clock: options.clock,
    onError: options.onError,
  });
  const sweep = startExpirySweep(options);
  const stopMesh = async (): Promise<void> => {
    await sweep.stop();
    await retention.stop();
  };
  if (db.driver !== 'pglite') return { stop: stopMesh };
  const maintenance = startEmbeddedMaintenance(db, {
    checkIntervalMs: options.maintenanceCheckIntervalMs ?? DEFAULT_MAINTENANCE_CHECK_INTERVAL_MS,
    fullIntervalMs: ANALYZE_INTERVAL_MS,
    onError: options.onError,
  });
  const stop = async (): Promise<void> => {
    await maintenance.stop();
    await stopMesh();
  };
  try {
    // Dead rows and statistics now. PGlite keeps no table statistics across a restart, so the
    // maintenance would not see the dead rows left before it; a vacuum that finds none costs ~20 ms
    // at 10k cells. The statistics let a restarted server plan kNN on the HNSW indexes at once.
    await vacuumMemoryTables(db);
    await analyzeMemoryTables(db);
  } catch (error) {
    await stop();
    throw error;
  }
  return { stop };
}

/** The expiry sweep on a timer; a pass still running when the next is due is not doubled. */
function startExpirySweep(options: BackgroundMaintenanceOptions): BackgroundMaintenance {
  const { sweepExpired } = options;
  if (sweepExpired === undefined) return { stop: async () => undefined };
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    running ??= sweepExpired()
      .then(() => undefined)
      .catch(options.onError)
      .finally(() => {
        running = undefined;
      });
  }, options.expirySweepIntervalMs ?? EXPIRY_SWEEP_INTERVAL_MS);
  timer.unref();
  return {
    async stop(): Promise<void> {
      clearInterval(timer);
      await running;
    },
  };
}
