/**
 * SQL of an erasure's `deleted` notices (docs/forgetting.md): the sequence numbers of every inbox
 * a batch tells, then every notice, in one statement each however many inboxes there are. Two
 * statements an inbox made a batch whose cells were gossiped to a hundred inboxes hold the
 * connection (PGlite) or the inboxes' locks (PostgreSQL) for hundreds of round trips.
 */
import type { Queryable } from './db.js';
import { DELIVERY_COLUMNS, type DeliveryRow, type NewDiff } from './diff-repository.js';

/** A `deleted` diff, without text, for one recipient. */
export type DeletedNotice = Omit<NewDiff, 'op' | 'preview' | 'supersedes' | 'expiresAt'> & { readonly recipientAgent: string };

/**
 * Reserves `count` sequence numbers in each agent's inbox and returns each one's last. The rows
 * are locked in the order given (the caller sorts the agents as the diff writer does, so the two
 * never wait on each other in a cycle) and stay locked until the transaction ends.
 */
export async function allocateSeqsInInboxes(q: Queryable, tenantId: string, counts: readonly { readonly agent: string; readonly count: number }[]): Promise<Map<string, number>> {
  if (counts.length === 0) return new Map();
  const result = await q.query<{ agent: string; last_seq: number | string }>(
    `INSERT INTO inboxes (tenant_id, agent, last_seq)
     SELECT $1, r.agent, r.count FROM jsonb_to_recordset($2::jsonb) AS r(ord integer, agent text, count bigint) ORDER BY r.ord
     ON CONFLICT (tenant_id, agent) DO UPDATE SET last_seq = inboxes.last_seq + EXCLUDED.last_seq
     RETURNING agent, last_seq`,
    [tenantId, JSON.stringify(counts.map((c, ord) => ({ ord, agent: c.agent, count: c.count })))],
  );
  return new Map(result.rows.map((row) => [row.agent, Number(row.last_seq)]));
}

/**
 * Inserts the notices of every inbox (after allocateSeqsInInboxes, under its locks). As for any
 * diff, created_at rises strictly within an inbox: at least 1 µs after its previous diff, then in
 * the order given.
 */
export async function insertDeletedNotices(q: Queryable, tenantId: string, notices: readonly DeletedNotice[]): Promise<DeliveryRow[]> {
  if (notices.length === 0) return [];
  const ords = new Map<string, number>();
  const batch = notices.map((n) => {
    const ord = ords.get(n.recipientAgent) ?? 0;
    ords.set(n.recipientAgent, ord + 1);
    return {
      recipient_agent: n.recipientAgent,
      ord,
      diff_id: n.diffId,
      seq: n.seq,
      node_id: n.nodeId,
      beacon_id: n.beaconId,
      similarity: n.similarity,
      cell_type: n.cellType,
      salience: n.salience,
      source_agent: n.sourceAgent,
      project: n.project,
      scene_id: n.sceneId,
      source_id: n.sourceId,
    };
  });
  const result = await q.query<DeliveryRow>(
    `WITH d AS (
       SELECT * FROM jsonb_to_recordset($2::jsonb) AS d(recipient_agent text, ord integer, diff_id uuid, seq bigint, node_id uuid, beacon_id uuid,
         similarity real, cell_type text, salience real, source_agent text, project text, scene_id uuid, source_id text)
     ), base AS (
       SELECT r.recipient_agent, GREATEST(clock_timestamp(), COALESCE(
         (SELECT max(x.created_at) FROM diffs x WHERE x.tenant_id = $1 AND x.recipient_agent = r.recipient_agent) + interval '1 microsecond', clock_timestamp())) AS t
       FROM (SELECT DISTINCT recipient_agent FROM d) AS r
     )
     INSERT INTO diffs (diff_id, tenant_id, recipient_agent, seq, op, node_id, beacon_id, similarity, cell_type, salience,
       source_agent, project, scene_id, preview, created_at, source_id)
     SELECT d.diff_id, $1, d.recipient_agent, d.seq, 'deleted', d.node_id, d.beacon_id, d.similarity, d.cell_type, d.salience,
       d.source_agent, d.project, d.scene_id, '', base.t + d.ord * interval '1 microsecond', d.source_id
     FROM d JOIN base ON base.recipient_agent = d.recipient_agent
     RETURNING ${DELIVERY_COLUMNS}`,
    [tenantId, JSON.stringify(batch)],
  );
  return result.rows;
}
