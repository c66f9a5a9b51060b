/**
 * SQL for the Claude Code channel's mark (migration 0010): how far an agent's channel sessions have
 * dealt with its inbox, and what its inbox holds above that mark and the drain cursor, summed by
 * cell type (or "document"), author and project. Every statement is scoped by tenant_id.
 */
import type { CellType } from '../core/cell-types.js';
import type { ChannelBacklog } from '../core/entities.js';
import { liveRow } from './cell-conditions.js';
import type { Queryable } from './db.js';

/** A group of the backlog with the project its diffs are about (the facade keeps the readable ones). */
export type ChannelBacklogGroup = ChannelBacklog['groups'][number] & {
  readonly project: string;
};

export interface ChannelBacklogRows {
  /** The inbox head: the backlog covers every seq up to it. */
  readonly headSeq: number;
  readonly groups: readonly ChannelBacklogGroup[];
}

/** The undelivered, unannounced part of one inbox, grouped; an agent without an inbox has none. */
export async function channelBacklog(q: Queryable, tenantId: string, agent: string): Promise<ChannelBacklogRows> {
  const result = await q.query<{ head_seq: number | string; cell_type: CellType | 'document' | null; source_agent: string | null; project: string | null; count: number | string }>(
    // A diff about a source counts as a document, whatever its chunk's cell type; a tombstone of an erased cell (0023) or a diff past its expiry is no event.
    `SELECT i.last_seq AS head_seq, CASE WHEN d.source_id IS NULL THEN d.cell_type ELSE 'document' END AS cell_type, d.source_agent, d.project,
            count(d.seq) AS count
       FROM inboxes i
       LEFT JOIN channel_marks m ON m.tenant_id = i.tenant_id AND m.agent = i.agent
       LEFT JOIN diffs d ON d.tenant_id = i.tenant_id AND d.recipient_agent = i.agent
        AND d.seq > GREATEST(i.cursor_seq, COALESCE(m.settled_seq, 0)) AND d.seq <= i.last_seq AND d.erased_at IS NULL AND ${liveRow('d')}
      WHERE i.tenant_id = $1 AND i.agent = $2
      GROUP BY 1, 2, 3, 4`,
    [tenantId, agent],
  );
  const groups: ChannelBacklogGroup[] = [];
  for (const row of result.rows) {
    if (row.cell_type === null || row.source_agent === null || row.project === null) continue;
    groups.push({ cell_type: row.cell_type, source_agent: row.source_agent, project: row.project, count: Number(row.count) });
  }
  return { headSeq: Number(result.rows[0]?.head_seq ?? 0), groups };
}

/** Raises the mark (never lowers it: several sessions of one agent may settle at different paces). */
export async function raiseChannelMark(q: Queryable, tenantId: string, agent: string, settledSeq: number): Promise<void> {
  await q.query(
    `INSERT INTO channel_marks (tenant_id, agent, settled_seq) VALUES ($1, $2, $3)
     ON CONFLICT (tenant_id, agent) DO UPDATE SET settled_seq = GREATEST(channel_marks.settled_seq, EXCLUDED.settled_seq)`,
    [tenantId, agent, settledSeq],
  );
}
