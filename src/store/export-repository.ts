/**
 * SQL of `hyphae export` (docs/export-format.md): each record type read in pages, in key order,
 * already in its line shape (snake_case, timestamps as RFC 3339 text with microseconds). A scope
 * names one tenant or every tenant, and optionally one project; what belongs to a tenant as a
 * whole (keys, inbox positions and their diffs) is left out of a project's export.
 */
import type { ExportRecordType } from '../core/export-format.js';
import { liveRow } from './cell-conditions.js';
import type { Queryable } from './db.js';
import { SqlConditions } from './sql/conditions.js';
import { isoText } from './sql-time.js';

export interface ExportScope {
  /** One tenant; null: every tenant of the database. */
  readonly tenantId: string | null;
  /** One project of it; null: every project. */
  readonly project: string | null;
}

/** A page position: the key values of the last row read (compared as one row value). */
export type ExportPosition = readonly (string | number)[];

/** One record as read: its line fields; `embedding` is pgvector text (a JSON array) when asked for. */
export type ExportRow = Record<string, unknown> & { readonly embedding?: string };

interface RecordQuery {
  /** The FROM clause; `t` is the main table. */
  readonly from: string;
  readonly columns: (withVectors: boolean) => string;
  /** Key expressions (the order) with the SQL type each position is bound as, and the row field holding each. */
  readonly key: readonly { readonly sql: string; readonly type: string; readonly field: string }[];
  /** Whether a project export holds this record type, and through which column. */
  readonly project: 'column' | 'none' | 'tenant-level';
  /** The expiry condition of a record type that expires (docs/expiry.md): an expired record is not exported. */
  readonly live?: string;
}

const iso = (column: string): string => isoText(column);
const isoOrNull = (column: string): string => `CASE WHEN ${column} IS NULL THEN NULL ELSE ${iso(column)} END`;

const RECORD_QUERIES: Readonly<Record<ExportRecordType, RecordQuery>> = {
  tenant: {
    from: 'tenants t',
    columns: () => `t.tenant_id AS tenant, ${iso('t.created_at')} AS created_at`,
    key: [{ sql: 't.tenant_id', type: 'text', field: 'tenant' }],
    project: 'none',
  },
  key: {
    from: 'api_keys t',
    columns: () => `t.tenant_id AS tenant, t.key_id::text AS key_id, t.agent, t.roles, t.projects, t.default_project, t.trust,
      encode(t.key_hash, 'hex') AS key_hash, t.key_prefix, ${iso('t.created_at')} AS created_at, ${isoOrNull('t.revoked_at')} AS revoked_at`,
    key: [{ sql: 't.key_id', type: 'uuid', field: 'key_id' }],
    project: 'tenant-level',
  },
  scene: {
    from: 'scenes t',
    columns: () => `t.tenant_id AS tenant, t.scene_id::text AS scene_id, t.project, t.title, t.created_by, ${iso('t.created_at')} AS created_at,
      ${isoOrNull('t.consolidated_at')} AS consolidated_at, t.consolidated_node_id::text AS consolidated_node_id`,
    key: [
      { sql: 't.tenant_id', type: 'text', field: 'tenant' },
      { sql: 't.scene_id', type: 'uuid', field: 'scene_id' },
    ],
    project: 'column',
  },
  session: {
    from: 'sessions t',
    columns: () => `t.tenant_id AS tenant, t.session_id::text AS session_id, t.agent, t.project, t.scene_id::text AS scene_id,
      ${iso('t.opened_at')} AS opened_at, ${isoOrNull('t.closed_at')} AS closed_at`,
    key: [
      { sql: 't.tenant_id', type: 'text', field: 'tenant' },
      { sql: 't.session_id', type: 'uuid', field: 'session_id' },
    ],
    project: 'column',
  },
  // The served version only: an ingestion still pending or failed is not exported (docs/export-format.md).
  source: {
    from: 'sources t',
    columns: () => `t.tenant_id AS tenant, t.project, t.source_id, t.kind, t.format, t.title, t.metadata,
      to_char(t.observation_date, 'YYYY-MM-DD') AS observation_date, t.body AS text, t.total_bytes, t.chunk_count, t.created_by,
      ${iso('t.created_at')} AS created_at, ${iso('t.updated_at')} AS updated_at, ${isoOrNull('t.expires_at')} AS expires_at`,
    key: [
      { sql: 't.tenant_id', type: 'text', field: 'tenant' },
      { sql: 't.project', type: 'text', field: 'project' },
      { sql: 't.source_id', type: 'text', field: 'source_id' },
    ],
    project: 'column',
    live: liveRow('t'),
  },
  cell: {
    from: 'cells t',
    columns: (withVectors) => `t.tenant_id AS tenant, t.node_id::text AS node_id, t.project, t.layer, t.cell_type, t.content, t.salience,
      t.scene_id::text AS scene_id, t.session_id::text AS session_id, t.source_agent, t.source_ref, t.metadata, t.idempotency_key,
      t.origin_node_id::text AS origin_node_id, t.promoted_node_id::text AS promoted_node_id, t.hits,
      ${iso('t.created_at')} AS created_at, ${iso('t.updated_at')} AS updated_at, ${iso('t.reinforced_at')} AS reinforced_at,
      ${iso('t.valid_from')} AS valid_from, ${isoOrNull('t.valid_until')} AS valid_until,
      t.supersedes::text AS supersedes, t.superseded_by::text AS superseded_by, t.corroborations, t.corroborators, t.trust,
      COALESCE((SELECT jsonb_agg(jsonb_build_object('agent', r.agent, 'idempotency_key', r.idempotency_key, 'created_at', ${iso('r.created_at')})
                ORDER BY r.agent, r.idempotency_key)
                FROM reinforcement_keys r WHERE r.node_id = t.node_id), '[]'::jsonb) AS reinforcement_keys,
      t.source_id, t.chunk_index, t.char_start, t.char_end, ${isoOrNull('t.expires_at')} AS expires_at
      ${withVectors ? ', t.embedding::text AS embedding' : ''}`,
    key: [{ sql: 't.node_id', type: 'uuid', field: 'node_id' }],
    project: 'column',
    live: liveRow('t'),
  },
  // Its project is its cell's: a project's export holds the corroborations of its cells.
  corroboration: {
    from: `(SELECT k.*, c.project FROM corroborations k JOIN cells c ON c.node_id = k.node_id AND ${liveRow('c')}) t`,
    columns: () => `t.tenant_id AS tenant, t.corroboration_id::text AS corroboration_id, t.node_id::text AS node_id, t.agent, t.content,
      t.salience, t.scene_id::text AS scene_id, t.session_id::text AS session_id, t.source_ref, t.metadata, t.similarity,
      ${iso('t.created_at')} AS created_at`,
    key: [{ sql: 't.corroboration_id', type: 'uuid', field: 'corroboration_id' }],
    project: 'column',
  },
  // A project's export holds the relations between two of its cells (project is null for one across projects).
  relation: {
    from: `(SELECT r.*, CASE WHEN f.project = c.project THEN f.project END AS project FROM cell_relations r
            JOIN cells f ON f.node_id = r.from_node_id AND ${liveRow('f')} JOIN cells c ON c.node_id = r.to_node_id AND ${liveRow('c')}) t`,
    columns: () => `t.tenant_id AS tenant, t.from_node_id::text AS from_node_id, t.to_node_id::text AS to_node_id, t.relation_type, t.created_by,
      ${iso('t.created_at')} AS created_at, ${isoOrNull('t.valid_until')} AS valid_until`,
    key: [
      { sql: 't.from_node_id', type: 'uuid', field: 'from_node_id' },
      { sql: 't.to_node_id', type: 'uuid', field: 'to_node_id' },
      { sql: 't.relation_type', type: 'text', field: 'relation_type' },
    ],
    project: 'column',
  },
  // What recall learnt for a live cell (its project is the cell's); its vector is the query's, by the database's embedder.
  evidence: {
    from: `(SELECT e.*, c.project FROM cell_evidence e JOIN cells c ON c.node_id = e.node_id AND ${liveRow('c')}) t`,
    columns: (withVectors) => `t.tenant_id AS tenant, t.evidence_id::text AS evidence_id, t.node_id::text AS node_id, t.weight, t.trust, t.agent,
      t.label, t.request_id, t.query_text, ${iso('t.created_at')} AS created_at${withVectors ? ', t.embedding::text AS embedding' : ''}`,
    key: [{ sql: 't.evidence_id', type: 'uuid', field: 'evidence_id' }],
    project: 'column',
  },
  beacon: {
    from: 'beacons t',
    columns: (withVectors) => `t.tenant_id AS tenant, t.beacon_id::text AS beacon_id, t.owner_agent, t.owner_projects, t.project, t.text,
      t.threshold, t.cell_types, t.scene_id::text AS scene_id, t.include_own, ${isoOrNull('t.expires_at')} AS expires_at,
      ${iso('t.created_at')} AS created_at${withVectors ? ', t.embedding::text AS embedding' : ''}`,
    key: [{ sql: 't.beacon_id', type: 'uuid', field: 'beacon_id' }],
    project: 'column',
  },
  // An agent with a channel mark but no inbox row yet still has a position to restore.
  inbox: {
    from: `(SELECT COALESCE(i.tenant_id, m.tenant_id) AS tenant_id, COALESCE(i.agent, m.agent) AS agent, COALESCE(i.last_seq, 0) AS last_seq,
              COALESCE(i.cursor_seq, 0) AS cursor_seq, m.settled_seq
            FROM inboxes i FULL JOIN channel_marks m ON m.tenant_id = i.tenant_id AND m.agent = i.agent) t`,
    columns: () => 't.tenant_id AS tenant, t.agent, t.last_seq, t.cursor_seq, t.settled_seq AS channel_settled_seq',
    key: [
      { sql: 't.tenant_id', type: 'text', field: 'tenant' },
      { sql: 't.agent', type: 'text', field: 'agent' },
    ],
    project: 'tenant-level',
  },
  // Only what still waits in an inbox: the diffs above its drain cursor.
  diff: {
    from: 'diffs t JOIN inboxes i ON i.tenant_id = t.tenant_id AND i.agent = t.recipient_agent AND t.seq > i.cursor_seq',
    columns: () => `t.tenant_id AS tenant, t.recipient_agent, t.diff_id::text AS diff_id, t.seq, t.op, t.node_id::text AS node_id,
      t.beacon_id::text AS beacon_id, t.similarity, t.cell_type, t.salience, t.source_agent, t.project, t.scene_id::text AS scene_id,
      CASE WHEN ${liveRow('t')} THEN t.preview ELSE '' END AS preview, t.supersedes::text AS supersedes, ${iso('t.created_at')} AS created_at, t.source_id,
      ${isoOrNull('t.expires_at')} AS expires_at`,
    key: [
      { sql: 't.tenant_id', type: 'text', field: 'tenant' },
      { sql: 't.recipient_agent', type: 'text', field: 'recipient_agent' },
      { sql: 't.seq', type: 'bigint', field: 'seq' },
    ],
    project: 'tenant-level',
  },
};

/** Whether an export of this scope holds records of this type at all. */
export function scopeHoldsRecords(type: ExportRecordType, scope: ExportScope): boolean {
  return scope.project === null || RECORD_QUERIES[type].project !== 'tenant-level';
}

/** The next page of one record type after `after` (null: from the start), at most `limit` rows, in key order. */
export async function exportPage(
  q: Queryable,
  type: ExportRecordType,
  scope: ExportScope,
  options: { readonly withVectors: boolean; readonly after: ExportPosition | null; readonly limit: number },
): Promise<ExportRow[]> {
  const spec = RECORD_QUERIES[type];
  const where = new SqlConditions([], [spec.live ?? 'TRUE']);
  where.add((n) => `t.tenant_id = $${n}`, scope.tenantId ?? undefined);
  if (spec.project === 'column') where.add((n) => `t.project = $${n}`, scope.project ?? undefined);
  if (options.after !== null) {
    const positions = spec.key.map((k, i) => `$${where.bind(options.after?.[i])}::${k.type}`);
    where.addRaw(`(${spec.key.map((k) => k.sql).join(', ')}) > (${positions.join(', ')})`);
  }
  const limitAt = where.bind(options.limit);
  const result = await q.query<ExportRow>(
    `SELECT ${spec.columns(options.withVectors)} FROM ${spec.from} WHERE ${where.sql}
      ORDER BY ${spec.key.map((k) => k.sql).join(', ')} LIMIT $${limitAt}`,
    where.params,
  );
  return result.rows;
}

/** The page position of a row of this type (what `after` takes to continue behind it). */
export function exportPosition(type: ExportRecordType, row: ExportRow): ExportPosition {
  return RECORD_QUERIES[type].key.map((k) => row[k.field] as string | number);
}
