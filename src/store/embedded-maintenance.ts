/**
 * What autovacuum does for PostgreSQL, for the embedded database (PGlite runs no autovacuum): a
 * cheap check every few seconds ANALYZEs the memory tables that grew by a tenth since their last
 * statistics and VACUUMs those whose dead rows passed a fifth of their live ones, and every table
 * is analyzed again at a slow interval. Without the statistics a folder that started empty keeps
 * planning kNN as an exact scan and a sort over every cell, so recall grows with the table instead
 * of following the HNSW index; without the vacuum every recall's hit counts, every supersession
 * and every deletion leaves rows that are never freed, and the folder only grows.
 */
import type { Db } from './db.js';
import { analyzeMemoryTables, analyzeTables, grownMemoryTables, tablesWithDeadRows, vacuumTables } from './statistics-repository.js';

export interface EmbeddedMaintenanceOptions {
  /** How often table growth and dead rows are checked. */
  readonly checkIntervalMs: number;
  /** How often every memory table is analyzed whatever its growth (updates change distributions too). */
  readonly fullIntervalMs: number;
  readonly onError?: (error: unknown) => void;
}

export interface EmbeddedMaintenance {
  stop(): Promise<void>;
}

export function startEmbeddedMaintenance(db: Db, options: EmbeddedMaintenanceOptions): EmbeddedMaintenance {
  let lastFull = Date.now();
  let running: Promise<void> | undefined;
  const tick = async (): Promise<void> => {
    const dead = await tablesWithDeadRows(db);
    if (dead.length > 0) await vacuumTables(db, dead);
    if (Date.now() - lastFull >= options.fullIntervalMs) {
      lastFull = Date.now();
      await analyzeMemoryTables(db);
      return;
    }
    const grown = await grownMemoryTables(db);
    if (grown.length > 0) await analyzeTables(db, grown);
  };
  const timer = setInterval(() => {
    // A slow pass never overlaps the next check.
    running ??= tick()
      .catch((error: unknown) => options.onError?.(error))
      .finally(() => {
        running = undefined;
      });
  }, options.checkIntervalMs);
  timer.unref();
  return {
    async stop(): Promise<void> {
      clearInterval(timer);
      await running;
    },
  };
}
