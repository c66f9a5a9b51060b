/**
 * Retrieval quality read back from judged feedback (docs/feedback.md): per day and sender label,
 * how many judged requests, how many had their truth first, in the top five, nowhere, and the sum of
 * reciprocal ranks; and the worst-judged requests with what they returned and what was true. Every
 * statement is scoped by tenant_id and by the caller's projects (null: all).
 */
import type { FeedbackLabel } from '../core/feedback-schemas.js';
import type { Queryable } from './db.js';

export interface QualityDayRow {
  readonly day: string;
  readonly label: FeedbackLabel;
  readonly judged: number;
  readonly first: number;
  readonly topFive: number;
  readonly missed: number;
  readonly reciprocalSum: number;
}

/** The tenant's judged feedback since `since`, by UTC day and label, oldest day first. */
export async function qualityByDay(q: Queryable, tenantId: string, projects: readonly string[] | null, since: Date): Promise<QualityDayRow[]> {
  const { rows } = await q.query<{ day: string; label: FeedbackLabel; judged: number; first: number; top_five: number; missed: number; reciprocal_sum: number }>(
    `SELECT to_char(f.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, f.label, count(*)::int AS judged,
            (count(*) FILTER (WHERE f.truth_rank = 1))::int AS first, (count(*) FILTER (WHERE f.truth_rank <= 5))::int AS top_five,
            (count(*) FILTER (WHERE f.truth_rank IS NULL))::int AS missed, COALESCE(sum(1.0 / f.truth_rank), 0)::float8 AS reciprocal_sum
       FROM recall_feedback f JOIN recall_requests r ON r.tenant_id = f.tenant_id AND r.request_id = f.request_id
      WHERE f.tenant_id = $1 AND f.judged AND f.created_at >= $2 AND ($3::text[] IS NULL OR COALESCE(r.projects, ARRAY[r.project]) <@ $3::text[])
      GROUP BY 1, 2 ORDER BY 1, 2`,
    [tenantId, since.toISOString(), projects],
  );
  return rows.map((row) => ({ day: row.day, label: row.label, judged: row.judged, first: row.first, topFive: row.top_five, missed: row.missed, reciprocalSum: Number(row.reciprocal_sum) }));
}

export interface WorstJudgedRow {
  readonly requestId: string;
  readonly queryText: string | null;
  readonly label: FeedbackLabel;
  readonly agent: string;
  readonly returned: readonly string[];
  readonly truth: readonly string[];
  readonly truthRank: number | null;
  readonly createdAt: string;
}

/** The tenant's worst-judged requests since `since`: truth not surfaced first, then the lowest ranked, newest first among equals. */
export async function worstJudged(q: Queryable, tenantId: string, projects: readonly string[] | null, since: Date, limit: number): Promise<WorstJudgedRow[]> {
  const { rows } = await q.query<{ request_id: string; query_text: string | null; label: FeedbackLabel; agent: string; returned: string[]; truth: string[]; truth_rank: number | null; created_at: Date | string }>(
    `SELECT f.request_id::text AS request_id, r.query_text, f.label, f.agent, r.result_ids::text[] AS returned, f.ground_truth_ids AS truth, f.truth_rank, f.created_at
       FROM recall_feedback f JOIN recall_requests r ON r.tenant_id = f.tenant_id AND r.request_id = f.request_id
      WHERE f.tenant_id = $1 AND f.judged AND f.created_at >= $2 AND ($3::text[] IS NULL OR COALESCE(r.projects, ARRAY[r.project]) <@ $3::text[])
      ORDER BY f.truth_rank DESC NULLS FIRST, f.created_at DESC, f.feedback_id LIMIT $4`,
    [tenantId, since.toISOString(), projects, limit],
  );
  return rows.map((row) => ({
    requestId: row.request_id,
    queryText: row.query_text,
    label: row.label,
    agent: row.agent,
    returned: row.returned,
    truth: row.truth,
    truthRank: row.truth_rank,
    createdAt: new Date(row.created_at).toISOString(),
  }));
}
