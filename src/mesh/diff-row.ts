/** A diffs-table row as the relay and the live feed read it, and its wire shapes. */
import type { Diff } from '../core/entities.js';
import type { DiffRow } from '../store/diff-repository.js';
import { isoText } from '../store/sql-time.js';
import type { DiffEnvelope } from './bus.js';

/** A diffs row with its addressing, as the relay and the live feed read it. */
export interface DeliveryRow extends DiffRow {
  readonly tenant_id: string;
  readonly recipient_agent: string;
}

/** Casts make both drivers return the same JS types (bigint and real would differ). */
export const DIFF_ROW_COLUMNS = `diff_id::text AS diff_id, tenant_id, recipient_agent, seq::float8 AS seq, op,
  node_id::text AS node_id, beacon_id::text AS beacon_id, similarity::float8 AS similarity, cell_type,
  salience::float8 AS salience, source_agent, project, scene_id::text AS scene_id, preview,
  ${isoText('created_at')} AS created_at, supersedes::text AS supersedes`;

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
  };
}

export function envelopeFromRow(row: DeliveryRow): DiffEnvelope {
  return { tenantId: row.tenant_id, recipientAgent: row.recipient_agent, diff: toDiff(row) };
}
