/** SQL for diffs and the per-agent inboxes they are delivered to. Every statement is scoped by tenant_id. */
import type { CellType, DiffOp } from '../core/cell-types.js';
import type { Diff } from '../core/entities.js';
import type { Queryable } from './db.js';
import { liveRow } from './cell-conditions.js';
import { isoText } from './sql-time.js';

/** A diff as stored is its wire shape: the columns come out of SQL as they go on the wire. */
export type DiffRow = Diff;

/** A diffs row with its addressing, as the outbox relay publishes it. */
export type DeliveryRow = DiffRow & {
  readonly tenant_id: string;
  readonly recipient_agent: string;
};

/**
 * The columns of a diff as every statement returns them; both drivers read int8 and real as JS
 * numbers. A diff of an expired cell shows no preview (docs/expiry.md): its text is gone from every read.
 */
const DIFF_COLUMNS = `diff_id::text AS diff_id, seq, op, node_id::text AS node_id, beacon_id::text AS beacon_id,
  similarity, cell_type, salience AS salience, source_agent, project, scene_id::text AS scene_id,
  CASE WHEN ${liveRow()} THEN preview ELSE '' END AS preview, ${isoText('created_at')} AS created_at, supersedes::text AS supersedes, source_id,
  ${isoText('expires_at')} AS expires_at`;

/** A diff's columns and its addressing (DeliveryRow). */
export const DELIVERY_COLUMNS = `tenant_id, recipient_agent, ${DIFF_COLUMNS}`;

/**
 * Reserves `count` sequence numbers in the agent's inbox and returns the last one. The upsert
 * holds the inbox row lock until the transaction ends, so writers to one inbox serialise and seqs
 * commit in order.
 */
export async function allocateInboxSeqs(q: Queryable, tenantId: string, agent: string, count: number): Promise<number> {
  const result = await q.query<{ last_seq: number | string }>(
    `INSERT INTO inboxes (tenant_id, agent, last_seq) VALUES ($1, $2, $3)
     ON CONFLICT (tenant_id, agent) DO UPDATE SET last_seq = inboxes.last_seq + EXCLUDED.last_seq
     RETURNING last_seq`,
    [tenantId, agent, count],
  );
  return Number(result.rows[0]?.last_seq ?? 0);
}

export interface NewDiff {
  readonly diffId: string;
  readonly seq: number;
  readonly op: DiffOp;
  readonly nodeId: string;
  readonly beaconId: string;
  readonly similarity: number;
  readonly cellType: CellType;
  readonly salience: number;
  readonly sourceAgent: string;
  readonly project: string;
  readonly sceneId: string | null;
  readonly preview: string;
  readonly supersedes: string | null;
  /** The source when the diff tells of a document; null for a cell. */
  readonly sourceId: string | null;
  /** When the cell it tells of expires (RFC 3339); null or absent: kept. */
  readonly expiresAt?: string | null;
}

/**
 * Inserts one inbox's diffs (call after allocateInboxSeqs, under its lock). created_at is made
 * strictly increasing per inbox — at least 1 µs after the inbox's previous diff — so that
 * ordering by (created_at) equals ordering by seq and a `since` cursor never splits a tie
 * (PGlite's clock only ticks in milliseconds).
 */
export async function insertInboxDiffs(q: Queryable, tenantId: string, agent: string, diffs: readonly NewDiff[]): Promise<DiffRow[]> {
  if (diffs.length === 0) return [];
  const batch = JSON.stringify(
    diffs.map((d, ord) => ({
      ord,
      diff_id: d.diffId,
      seq: d.seq,
      op: d.op,
      node_id: d.nodeId,
      beacon_id: d.beaconId,
      similarity: d.similarity,
      cell_type: d.cellType,
      salience: d.salience,
      source_agent: d.sourceAgent,
      project: d.project,
      scene_id: d.sceneId,
      preview: d.preview,
      supersedes: d.supersedes,
      source_id: d.sourceId,
      expires_at: d.expiresAt ?? null,
    })),
  );
  const result = await q.query<DiffRow>(
    `WITH base AS (
       SELECT GREATEST(clock_timestamp(), COALESCE(max(created_at) + interval '1 microsecond', clock_timestamp())) AS t
       FROM diffs WHERE tenant_id = $1 AND recipient_agent = $2
     )
     INSERT INTO diffs (diff_id, tenant_id, recipient_agent, seq, op, node_id, beacon_id, similarity, cell_type, salience,
       source_agent, project, scene_id, preview, created_at, supersedes, source_id, expires_at)
     SELECT d.diff_id, $1, $2, d.seq, d.op, d.node_id, d.beacon_id, d.similarity, d.cell_type, d.salience,
       d.source_agent, d.project, d.scene_id, d.preview, base.t + d.ord * interval '1 microsecond', d.supersedes, d.source_id, d.expires_at
     FROM jsonb_to_recordset($3::jsonb) AS d(ord integer, diff_id uuid, seq bigint, op text, node_id uuid, beacon_id uuid,
       similarity real, cell_type text, salience real, source_agent text, project text, scene_id uuid, preview text,
       supersedes uuid, source_id text, expires_at timestamptz)
     CROSS JOIN base
     RETURNING ${DIFF_COLUMNS}`,
    [tenantId, agent, batch],
  );
  return result.rows;
}

/** The agent's diffs created strictly after `since`, oldest first. */
export async function diffsSince(q: Queryable, tenantId: string, agent: string, since: string, limit: number): Promise<DiffRow[]> {
  const result = await q.query<DiffRow>(
    `SELECT ${DIFF_COLUMNS} FROM diffs WHERE tenant_id = $1 AND recipient_agent = $2 AND created_at > $3::timestamptz
     ORDER BY created_at, seq LIMIT $4`,
    [tenantId, agent, since, limit],
  );
  return result.rows;
}

export interface InboxCursor {
  readonly cursorSeq: number;
  readonly lastSeq: number;
}

/** Locks the agent's inbox row until the transaction ends; null when the agent never received a diff. */
export async function lockInbox(q: Queryable, tenantId: string, agent: string): Promise<InboxCursor | null> {
  const result = await q.query<{ cursor_seq: number | string; last_seq: number | string }>(
    `SELECT cursor_seq, last_seq FROM inboxes WHERE tenant_id = $1 AND agent = $2 FOR UPDATE`,
    [tenantId, agent],
  );
  const row = result.rows[0];
  return row === undefined ? null : { cursorSeq: Number(row.cursor_seq), lastSeq: Number(row.last_seq) };
}

/** The agent's inbox cursor and head, read without a lock; null when the agent never received a diff. */
export async function readInboxCursor(q: Queryable, tenantId: string, agent: string): Promise<InboxCursor | null> {
  const result = await q.query<{ cursor_seq: number | string; last_seq: number | string }>(
    `SELECT cursor_seq, last_seq FROM inboxes WHERE tenant_id = $1 AND agent = $2`,
    [tenantId, agent],
  );
  const row = result.rows[0];
  return row === undefined ? null : { cursorSeq: Number(row.cursor_seq), lastSeq: Number(row.last_seq) };
}

/** The agent's diffs with seq > afterSeq, in seq order (drains, peeks and the live feed's catch-up). */
export async function diffsAfterSeq(q: Queryable, tenantId: string, agent: string, afterSeq: number, limit: number): Promise<DiffRow[]> {
  const result = await q.query<DiffRow>(
    `SELECT ${DIFF_COLUMNS} FROM diffs WHERE tenant_id = $1 AND recipient_agent = $2 AND seq > $3 ORDER BY seq LIMIT $4`,
    [tenantId, agent, afterSeq, limit],
  );
  return result.rows;
}

/**
 * The newest seq of the agent's inbox: its allocated head, or the newest diff still there when that
 * is higher (a reset inbox row); 0 when the agent never received a diff.
 */
export async function inboxHead(q: Queryable, tenantId: string, agent: string): Promise<number> {
  const { rows } = await q.query<{ head: number | null }>(
    `SELECT GREATEST(
       (SELECT last_seq FROM inboxes WHERE tenant_id = $1 AND agent = $2),
       (SELECT max(seq) FROM diffs WHERE tenant_id = $1 AND recipient_agent = $2)
     )::float8 AS head`,
    [tenantId, agent],
  );
  return Number(rows[0]?.head ?? 0);
}

export interface InboxHead {
  readonly tenant_id: string;
  readonly agent: string;
  readonly last_seq: number;
}

/** The allocated heads of many inboxes in one statement; an inbox that never received a diff is absent. */
export async function inboxHeads(q: Queryable, inboxes: readonly { readonly tenantId: string; readonly agent: string }[]): Promise<InboxHead[]> {
  const { rows } = await q.query<InboxHead>(
    `SELECT i.tenant_id, i.agent, i.last_seq::float8 AS last_seq
     FROM inboxes i JOIN unnest($1::text[], $2::text[]) AS s(tenant_id, agent) USING (tenant_id, agent)`,
    [inboxes.map((inbox) => inbox.tenantId), inboxes.map((inbox) => inbox.agent)],
  );
  return rows;
}

export async function advanceInboxCursor(q: Queryable, tenantId: string, agent: string, cursorSeq: number): Promise<void> {
  await q.query(`UPDATE inboxes SET cursor_seq = GREATEST(cursor_seq, $3) WHERE tenant_id = $1 AND agent = $2`, [tenantId, agent, cursorSeq]);
}

/** Retention: removes up to `batch` diffs created before `cutoff`, across tenants (a system job). */
export async function purgeDiffsBefore(q: Queryable, cutoff: Date, batch: number): Promise<number> {
  const result = await q.query(
    `DELETE FROM diffs WHERE diff_id IN (SELECT diff_id FROM diffs WHERE created_at < $1 ORDER BY created_at LIMIT $2)`,
    [cutoff.toISOString(), batch],
  );
  return result.rowCount;
}

/** Deletes the inbox's diffs with seq <= throughSeq (oldest first trimming); returns how many. */
export async function trimInbox(q: Queryable, tenantId: string, agent: string, throughSeq: number): Promise<number> {
  if (throughSeq < 1) return 0;
  const result = await q.query(`DELETE FROM diffs WHERE tenant_id = $1 AND recipient_agent = $2 AND seq <= $3`, [tenantId, agent, throughSeq]);
  return result.rowCount;
}
