/**
 * The background upkeep of a server's database: diff, beacon and recall-log retention, and for the embedded
 * PGlite folder (which has no autovacuum) the statistics and vacuum passes autovacuum would run.
 */
import { startRetention } from '../mesh/retention.js';
import { startEmbeddedMaintenance } from '../store/embedded-maintenance.js';
import type { Db } from '../store/db.js';
import { analyzeMemoryTables, vacuumMemoryTables } from '../store/statistics-repository.js';

const RETENTION_INTERVAL_MS = 3_600_000;
const ANALYZE_INTERVAL_MS = 300_000;
const DEFAULT_MAINTENANCE_CHECK_INTERVAL_MS = 2_000;

export interface BackgroundMaintenanceOptions {
  readonly diffRetentionDays: number;
  readonly recallLogRetentionDays: number;
  readonly clock: () => Date;
  readonly onError: (error: unknown) => void;
  /** Embedded only: how often table growth and dead rows are checked. */
  readonly maintenanceCheckIntervalMs?: number;
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
  if (db.driver !== 'pglite') return { stop: () => retention.stop() };
  const maintenance = startEmbeddedMaintenance(db, {
    checkIntervalMs: options.maintenanceCheckIntervalMs ?? DEFAULT_MAINTENANCE_CHECK_INTERVAL_MS,
    fullIntervalMs: ANALYZE_INTERVAL_MS,
    onError: options.onError,
  });
  const stop = async (): Promise<void> => {
    await maintenance.stop();
    await retention.stop();
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
