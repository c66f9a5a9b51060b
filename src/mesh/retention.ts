/**
 * Retention of the gossip mesh: diffs older than the configured age and expired beacons are
 * removed by a timer in the runtime. These are system jobs and run across tenants.
 */
import type { Db } from '../store/db.js';
import { purgeBeaconsExpiredBy } from '../store/beacon-repository.js';
import { purgeDiffsBefore } from '../store/diff-repository.js';

const MS_PER_DAY = 86_400_000;
const PURGE_BATCH = 5_000;

/** Deletes diffs created more than `olderThanDays` before `now`, in batches; returns how many. */
export async function purgeExpiredDiffs(db: Db, olderThanDays: number, now: Date = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - olderThanDays * MS_PER_DAY);
  let total = 0;
  for (;;) {
    const removed = await purgeDiffsBefore(db, cutoff, PURGE_BATCH);
    total += removed;
    if (removed < PURGE_BATCH) return total;
  }
}

export async function purgeExpiredBeacons(db: Db, now: Date = new Date()): Promise<number> {
  return purgeBeaconsExpiredBy(db, now);
}

export interface RetentionOptions {
  readonly diffRetentionDays: number;
  readonly intervalMs: number;
  readonly clock: () => Date;
  readonly onError?: (error: unknown) => void;
}

export interface RetentionTimer {
  /** One pass now (also what the timer runs). */
  runOnce(): Promise<{ diffs: number; beacons: number }>;
  stop(): Promise<void>;
}

export function startRetention(db: Db, options: RetentionOptions): RetentionTimer {
  let running: Promise<unknown> = Promise.resolve();
  const runOnce = async (): Promise<{ diffs: number; beacons: number }> => {
    const now = options.clock();
    const diffs = await purgeExpiredDiffs(db, options.diffRetentionDays, now);
    const beacons = await purgeExpiredBeacons(db, now);
    return { diffs, beacons };
  };
  const timer = setInterval(() => {
    running = runOnce().catch((error: unknown) => options.onError?.(error));
  }, options.intervalMs);
  timer.unref();
  return {
    runOnce,
    async stop(): Promise<void> {
      clearInterval(timer);
      await running;
    },
  };
}
