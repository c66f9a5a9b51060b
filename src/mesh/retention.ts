/**
 * Retention of the gossip mesh: diffs older than the configured age and expired beacons are
 * removed by a timer in the runtime, and so are recall-log requests (with their feedback) older
 * than theirs (docs/feedback.md). These are system jobs and run across tenants.
 */
import type { Db } from '../store/db.js';
import { purgeBeaconsExpiredBy } from '../store/beacon-repository.js';
import { purgeDiffsBefore } from '../store/diff-repository.js';
import { purgeRecallRequestsBefore } from '../store/recall-log-repository.js';

const MS_PER_DAY = 86_400_000;
const PURGE_BATCH = 5_000;

/** Runs a batched purge of what is older than `olderThanDays` before `now` until a batch comes back short; returns how many. */
async function purgeInBatches(purge: (cutoff: Date, batch: number) => Promise<number>, olderThanDays: number, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - olderThanDays * MS_PER_DAY);
  let total = 0;
  for (;;) {
    const removed = await purge(cutoff, PURGE_BATCH);
    total += removed;
    if (removed < PURGE_BATCH) return total;
  }
}

/** Deletes diffs created more than `olderThanDays` before `now`, in batches; returns how many. */
export async function purgeExpiredDiffs(db: Db, olderThanDays: number, now: Date = new Date()): Promise<number> {
  return purgeInBatches((cutoff, batch) => purgeDiffsBefore(db, cutoff, batch), olderThanDays, now);
}

/** Deletes recall-log requests (and the feedback on them) logged more than `olderThanDays` before `now`; returns how many. */
export async function purgeExpiredRecallRequests(db: Db, olderThanDays: number, now: Date = new Date()): Promise<number> {
  return purgeInBatches((cutoff, batch) => purgeRecallRequestsBefore(db, cutoff, batch), olderThanDays, now);
}

export async function purgeExpiredBeacons(db: Db, now: Date = new Date()): Promise<number> {
  return purgeBeaconsExpiredBy(db, now);
}

export interface RetentionOptions {
  readonly diffRetentionDays: number;
  /** How long recall-log requests stay judgeable (HYPHAE_RECALL_LOG_RETENTION_DAYS). */
  readonly recallLogRetentionDays: number;
  readonly intervalMs: number;
  readonly clock: () => Date;
  readonly onError?: (error: unknown) => void;
}

/** What one pass removed, by kind. */
export interface RetentionPass {
  readonly diffs: number;
  readonly beacons: number;
  readonly recallRequests: number;
}

export interface RetentionTimer {
  /** One pass now (also what the timer runs). */
  runOnce(): Promise<RetentionPass>;
  stop(): Promise<void>;
}

export function startRetention(db: Db, options: RetentionOptions): RetentionTimer {
  let running: Promise<unknown> = Promise.resolve();
  const runOnce = async (): Promise<RetentionPass> => {
    const now = options.clock();
    const diffs = await purgeExpiredDiffs(db, options.diffRetentionDays, now);
    const beacons = await purgeExpiredBeacons(db, now);
    const recallRequests = await purgeExpiredRecallRequests(db, options.recallLogRetentionDays, now);
    return { diffs, beacons, recallRequests };
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
