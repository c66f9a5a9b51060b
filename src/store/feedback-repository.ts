/**
 * SQL for feedback on logged requests (migration 0020, docs/feedback.md): what ground-truth ids
 * name — cells of the tenant, sources of the judged request's projects, and the chunk of a source
 * that stands for it — and the feedback row. Every statement is scoped by tenant_id.
 */
import type { FeedbackLabel, FeedbackRating } from '../core/feedback-schemas.js';
import { liveRow } from './cell-conditions.js';
import type { Queryable } from './db.js';
import type { VectorParam } from './vector-param.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The ids among `ids` that are cells of the tenant in one of `projects` (null: any project), any version or layer, not expired. */
export async function readableCellIds(q: Queryable, tenantId: string, ids: readonly string[], projects: readonly string[] | null): Promise<Set<string>> {
  const uuids = ids.filter((id) => UUID.test(id)).map((id) => id.toLowerCase());
  if (uuids.length === 0) return new Set();
  const { rows } = await q.query<{ node_id: string }>(
    `SELECT node_id::text AS node_id FROM cells WHERE tenant_id = $1 AND node_id = ANY($2::uuid[]) AND ($3::text[] IS NULL OR project = ANY($3::text[])) AND ${liveRow()}`,
    [tenantId, uuids, projects],
  );
  return new Set(rows.map((row) => row.node_id));
}

/** The ids among `ids` that are sources of one of the tenant's `projects`, not expired. */
export async function sourceIdsOfProjects(q: Queryable, tenantId: string, projects: readonly string[], ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { rows } = await q.query<{ source_id: string }>(`SELECT source_id FROM sources WHERE tenant_id = $1 AND project = ANY($2::text[]) AND source_id = ANY($3::text[]) AND ${liveRow()}`, [tenantId, projects, ids]);
  return new Set(rows.map((row) => row.source_id));
}

/**
 * For each source, its current chunk nearest to `vector` (an embedding of the deployment's model),
 * or its first chunk when there is no such vector: the chunk that stands for the source as evidence.
 */
export async function standInChunks(q: Queryable, tenantId: string, projects: readonly string[], sourceIds: readonly string[], vector: VectorParam | null): Promise<string[]> {
  if (sourceIds.length === 0) return [];
  const order = vector === null ? 'chunk_index' : 'embedding <=> $4::vector';
  const { rows } = await q.query<{ node_id: string }>(
    `SELECT DISTINCT ON (project, source_id) node_id::text AS node_id FROM cells
      WHERE tenant_id = $1 AND project = ANY($2::text[]) AND source_id = ANY($3::text[]) AND valid_until IS NULL
      ORDER BY project, source_id, ${order}`,
    vector === null ? [tenantId, projects, sourceIds] : [tenantId, projects, sourceIds, vector],
  );
  return rows.map((row) => row.node_id);
}

export interface FeedbackRow {
  readonly tenantId: string;
  readonly feedbackId: string;
  readonly requestId: string;
  readonly agent: string;
  readonly label: FeedbackLabel;
  readonly senderTrust: number;
  readonly rating: FeedbackRating | null;
  readonly feedback: string | null;
  readonly groundTruthAnswer: string | null;
  readonly groundTruthIds: readonly string[];
  readonly truthCellIds: readonly string[];
  readonly judged: boolean;
  readonly truthRank: number | null;
  readonly metadata: Readonly<Record<string, string>>;
  readonly createdAt: Date;
}

export async function insertFeedback(q: Queryable, row: FeedbackRow): Promise<void> {
  await q.query(
    `INSERT INTO recall_feedback (tenant_id, feedback_id, request_id, agent, label, sender_trust, rating, feedback, ground_truth_answer, ground_truth_ids,
       truth_cell_ids, judged, truth_rank, metadata, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::text[], $11::uuid[], $12, $13, $14::jsonb, $15)`,
    [
      row.tenantId,
      row.feedbackId,
      row.requestId,
      row.agent,
      row.label,
      row.senderTrust,
      row.rating,
      row.feedback,
      row.groundTruthAnswer,
      row.groundTruthIds,
      row.truthCellIds,
      row.judged,
      row.truthRank,
      JSON.stringify(row.metadata),
      row.createdAt.toISOString(),
    ],
  );
}
