/** SQL of the outbox relay (src/mesh/outbox-relay.ts): the diffs not yet published on the bus, across tenants (a system job). */
import type { Queryable } from './db.js';
import { DELIVERY_COLUMNS, type DeliveryRow } from './diff-repository.js';

/**
 * Claims up to `limit` unpublished diffs, oldest first, row-locked until the transaction ends;
 * rows another relay holds are skipped, so relays on several replicas share the work.
 */
export async function claimUnpublishedDiffs(tx: Queryable, limit: number): Promise<DeliveryRow[]> {
  const { rows } = await tx.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM diffs WHERE published_at IS NULL
     ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
    [limit],
  );
  return rows;
}

export async function markDiffsPublished(tx: Queryable, diffIds: readonly string[]): Promise<void> {
  await tx.query('UPDATE diffs SET published_at = clock_timestamp() WHERE diff_id = ANY($1::uuid[])', [diffIds]);
}

/** Age in seconds of the oldest diff not yet published; 0 when the outbox is empty. */
export async function outboxLagSeconds(q: Queryable): Promise<number> {
  const { rows } = await q.query<{ lag: number | null }>(
    `SELECT EXTRACT(EPOCH FROM clock_timestamp() - min(created_at))::float8 AS lag FROM diffs WHERE published_at IS NULL`,
  );
  return Math.max(0, Number(rows[0]?.lag ?? 0));
}
