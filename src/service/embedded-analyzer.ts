/**
 * Planner statistics for the embedded database, as autovacuum keeps them on PostgreSQL: a cheap
 * check every few seconds ANALYZEs the memory tables that grew by a tenth since their last
 * statistics, and every table is analyzed again at a slow interval. Without it a folder that
 * started empty keeps planning kNN as an exact scan and a sort over every cell until the slow
 * pass, and recall grows with the table instead of following the HNSW index.
 */
import type { Db } from '../store/db.js';
import { analyzeMemoryTables, analyzeTables, grownMemoryTables } from '../store/statistics-repository.js';

export interface EmbeddedAnalyzerOptions {
  /** How often table growth is checked. */
  readonly checkIntervalMs: number;
  /** How often every memory table is analyzed whatever its growth (updates change distributions too). */
  readonly fullIntervalMs: number;
  readonly onError?: (error: unknown) => void;
}

export interface EmbeddedAnalyzer {
  stop(): Promise<void>;
}

export function startEmbeddedAnalyzer(db: Db, options: EmbeddedAnalyzerOptions): EmbeddedAnalyzer {
  let lastFull = Date.now();
  let running: Promise<void> | undefined;
  const tick = async (): Promise<void> => {
    if (Date.now() - lastFull >= options.fullIntervalMs) {
      lastFull = Date.now();
      await analyzeMemoryTables(db);
      return;
    }
    const grown = await grownMemoryTables(db);
    if (grown.length > 0) await analyzeTables(db, grown);
  };
  const timer = setInterval(() => {
    // A slow ANALYZE never overlaps the next check.
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
