/** SQL for what recall learnt from ground truth (migration 0021, docs/feedback-learning.md). Every statement is scoped by tenant_id. */
import { randomUUID } from 'node:crypto';
import { liveRow } from './cell-conditions.js';
import type { Queryable } from './db.js';
import { isoText } from './sql-time.js';
import type { VectorParam } from './vector-param.js';

/** Evidence one cell keeps at most: the heaviest, then the newest; more would let one cell's reads cost without bound. */
export const MAX_EVIDENCE_PER_CELL = 16;

export type EvidenceLabel = 'agent' | 'human';

export interface NewEvidence {
  readonly tenantId: string;
  /** The cells the judgement named true; ids of no live cell of the tenant are skipped. */
  readonly nodeIds: readonly string[];
  /** The judged query's embedding, by the database's embedder. */
  readonly embedding: VectorParam;
  /** In [0, 1]: how much of the gap between the cell's own similarity and the query's it may close. */
  readonly weight: number;
  /** The sender's trust when it judged: evidence counts only for a recall whose min_trust it meets. */
  readonly trust: number;
  readonly agent: string;
  readonly label: EvidenceLabel;
  readonly requestId: string;
  /** The judged query's text, kept so a re-embed can embed it again; null when only its hash was logged. */
  readonly queryText: string | null;
  readonly now: Date;
}

/**
 * Records the evidence for each named cell of the tenant (a second judgement of the same request by
 * the same agent replaces the first), then keeps each cell's MAX_EVIDENCE_PER_CELL heaviest and
 * newest. Returns the cells that received it.
 */
export async function insertEvidence(q: Queryable, e: NewEvidence): Promise<string[]> {
  if (e.nodeIds.length === 0) return [];
  const inserted = await q.query<{ node_id: string }>(
    `INSERT INTO cell_evidence (evidence_id, tenant_id, node_id, embedding, weight, trust, agent, label, request_id, query_text, created_at)
     SELECT ids.evidence_id, $1, c.node_id, $3::vector, $4, $5, $6, $7, $8, $9, $10
       FROM cells c JOIN unnest($2::uuid[], $11::uuid[]) AS ids(node_id, evidence_id) ON ids.node_id = c.node_id
      WHERE c.tenant_id = $1 AND ${liveRow('c')}
     ON CONFLICT (node_id, request_id, agent) DO UPDATE SET embedding = EXCLUDED.embedding, weight = EXCLUDED.weight, trust = EXCLUDED.trust,
       label = EXCLUDED.label, query_text = EXCLUDED.query_text, created_at = EXCLUDED.created_at
     RETURNING node_id::text AS node_id`,
    [e.tenantId, e.nodeIds, e.embedding, e.weight, e.trust, e.agent, e.label, e.requestId, e.queryText, e.now.toISOString(), e.nodeIds.map(() => randomUUID())],
  );
  const cells = inserted.rows.map((row) => row.node_id);
  if (cells.length > 0) await pruneEvidence(q, e.tenantId, cells);
  return cells;
}

/** Drops each cell's evidence beyond the MAX_EVIDENCE_PER_CELL heaviest, newest. */
async function pruneEvidence(q: Queryable, tenantId: string, nodeIds: readonly string[]): Promise<void> {
  await q.query(
    `DELETE FROM cell_evidence WHERE evidence_id IN (
       SELECT evidence_id FROM (
         SELECT evidence_id, row_number() OVER (PARTITION BY node_id ORDER BY weight DESC, created_at DESC, evidence_id) AS place
           FROM cell_evidence WHERE tenant_id = $1 AND node_id = ANY($2::uuid[])) AS ranked
        WHERE place > $3)`,
    [tenantId, nodeIds, MAX_EVIDENCE_PER_CELL],
  );
}

export interface EvidenceRow {
  readonly evidence_id: string;
  readonly node_id: string;
  readonly weight: number;
  readonly trust: number;
  readonly agent: string;
  readonly label: EvidenceLabel;
  readonly request_id: string;
  readonly query_text: string | null;
  readonly created_at: string;
}

/** The evidence the tenant's cells hold among `nodeIds`, by cell then newest first. */
export async function evidenceOf(q: Queryable, tenantId: string, nodeIds: readonly string[]): Promise<EvidenceRow[]> {
  const result = await q.query<EvidenceRow>(
    `SELECT evidence_id::text AS evidence_id, node_id::text AS node_id, weight, trust, agent, label, request_id, query_text, ${isoText('created_at')} AS created_at
       FROM cell_evidence WHERE tenant_id = $1 AND node_id = ANY($2::uuid[]) ORDER BY node_id, created_at DESC, evidence_id`,
    [tenantId, nodeIds],
  );
  return result.rows;
}

/** Evidence as an import writes it (docs/export-format.md): its line's fields, its vector as pgvector text. */
export type ImportedEvidence = EvidenceRow & { readonly tenant: string; readonly embedding: string };

/**
 * Adds the evidence not yet present whose cell is a live cell of its own tenant (evidence for any
 * other cell is skipped: it can lift nothing), then keeps each cell's MAX_EVIDENCE_PER_CELL. Returns
 * the ids added.
 */
export async function insertImportedEvidence(q: Queryable, rows: readonly ImportedEvidence[]): Promise<string[]> {
  if (rows.length === 0) return [];
  const inserted = await q.query<{ id: string; tenant_id: string; node_id: string }>(
    `INSERT INTO cell_evidence (evidence_id, tenant_id, node_id, embedding, weight, trust, agent, label, request_id, query_text, created_at)
     SELECT r.evidence_id, r.tenant, r.node_id, r.embedding::vector, r.weight, r.trust, r.agent, r.label, r.request_id, r.query_text, r.created_at
       FROM jsonb_to_recordset($1::jsonb) AS r(evidence_id uuid, tenant text, node_id uuid, embedding text, weight real, trust real, agent text,
            label text, request_id text, query_text text, created_at timestamptz)
      WHERE EXISTS (SELECT 1 FROM cells c WHERE c.node_id = r.node_id AND c.tenant_id = r.tenant AND ${liveRow('c')})
     ON CONFLICT DO NOTHING RETURNING evidence_id::text AS id, tenant_id, node_id::text AS node_id`,
    [JSON.stringify(rows)],
  );
  const byTenant = new Map<string, string[]>();
  for (const row of inserted.rows) byTenant.set(row.tenant_id, [...(byTenant.get(row.tenant_id) ?? []), row.node_id]);
  for (const [tenantId, nodeIds] of byTenant) await pruneEvidence(q, tenantId, [...new Set(nodeIds)]);
  return inserted.rows.map((row) => row.id);
}
