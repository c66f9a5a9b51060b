/** A diffs-table row in its wire shapes: the diff, and the envelope the bus carries. */
import type { Diff } from '../core/entities.js';
import type { DeliveryRow, DiffRow } from '../store/diff-repository.js';
import type { DiffEnvelope } from './bus.js';

/** The wire shape of a diffs row; numeric columns are coerced because drivers differ on bigint/real. */
export function toDiff(row: DiffRow): Diff {
  return {
    diff_id: row.diff_id,
    seq: Number(row.seq),
    op: row.op,
    node_id: row.node_id,
    beacon_id: row.beacon_id,
    similarity: Number(row.similarity),
    cell_type: row.cell_type,
    salience: Number(row.salience),
    source_agent: row.source_agent,
    project: row.project,
    scene_id: row.scene_id,
    preview: row.preview,
    created_at: row.created_at,
    supersedes: row.supersedes ?? null,
    source_id: row.source_id ?? null,
    expires_at: row.expires_at ?? null,
  };
}

export function envelopeFromRow(row: DeliveryRow): DiffEnvelope {
  return { tenantId: row.tenant_id, recipientAgent: row.recipient_agent, diff: toDiff(row) };
}
