/**
 * SQL for the recall log (migration 0019, docs/feedback.md): one row per recall or query answered,
 * named by its request_id. Every statement but retention is scoped by tenant_id; retention runs
 * across tenants, oldest first, in batches.
 */
import type { Queryable } from './db.js';
import type { VectorParam } from './vector-param.js';
import { parseVectorText } from './vector-text.js';

export type RecallOperation = 'recall' | 'query';

/** What a logged request says, written and read alike. */
interface LoggedRequest {
  readonly requestId: string;
  readonly agent: string;
  /** A person signed in to the console asked, not an agent's credential. */
  readonly human: boolean;
  readonly operation: RecallOperation;
  /** The projects searched: the current or named one, or several at once (migration 0020). */
  readonly projects: readonly string[];
  /** Null when the operator keeps hashes only (HYPHAE_RECALL_LOG_TEXT=off). */
  readonly queryText: string | null;
  readonly querySha256: string;
  readonly embeddingModel: string;
  /** The arguments but the query text, as the caller sent them once validated. */
  readonly arguments: Readonly<Record<string, unknown>>;
  /** The answer's cell ids, best first. */
  readonly resultIds: readonly string[];
}

export interface RecallLogEntry extends LoggedRequest {
  readonly tenantId: string;
  readonly queryEmbedding: VectorParam;
  readonly createdAt: Date;
}

/** A logged request as a judgement reads it back. */
export interface RecallLogRow extends LoggedRequest {
  /** The first project searched (the only one, but for a search of several). */
  readonly project: string;
  readonly queryEmbedding: readonly number[];
  readonly createdAt: string;
}

/** One INSERT per answered recall. */
export async function insertRecallRequest(q: Queryable, entry: RecallLogEntry): Promise<void> {
  await q.query(
    `INSERT INTO recall_requests (tenant_id, request_id, agent, human, operation, project, projects, query_text, query_sha256, query_embedding, embedding_model, arguments, result_ids, created_at)
     VALUES ($1, $2, $3, $4, $5, ($6::text[])[1], CASE WHEN cardinality($6::text[]) > 1 THEN $6::text[] END, $7, $8, $9::vector, $10, $11::jsonb, $12::uuid[], $13)`,
    [
      entry.tenantId,
      entry.requestId,
      entry.agent,
      entry.human,
      entry.operation,
      entry.projects,
      entry.queryText,
      entry.querySha256,
      entry.queryEmbedding,
      entry.embeddingModel,
      JSON.stringify(entry.arguments),
      entry.resultIds,
      entry.createdAt.toISOString(),
    ],
  );
}

interface RecallRequestRecord {
  request_id: string;
  agent: string;
  human: boolean;
  operation: RecallOperation;
  project: string;
  projects: string[];
  query_text: string | null;
  query_sha256: string;
  query_embedding: string;
  embedding_model: string;
  arguments: Record<string, unknown>;
  result_ids: string[];
  created_at: Date | string;
}

/** The tenant's logged request, or null (unknown, purged, or another tenant's: the same answer). */
export async function findRecallRequest(q: Queryable, tenantId: string, requestId: string): Promise<RecallLogRow | null> {
  const { rows } = await q.query<RecallRequestRecord>(
    `SELECT request_id, agent, human, operation, project, COALESCE(projects, ARRAY[project]) AS projects, query_text, query_sha256, query_embedding::text AS query_embedding, embedding_model, arguments,
            result_ids::text[] AS result_ids, created_at
       FROM recall_requests WHERE tenant_id = $1 AND request_id = $2`,
    [tenantId, requestId],
  );
  const row = rows[0];
  if (row === undefined) return null;
  return {
    requestId: row.request_id,
    agent: row.agent,
    human: row.human,
    operation: row.operation,
    project: row.project,
    projects: row.projects,
    queryText: row.query_text,
    querySha256: row.query_sha256,
    queryEmbedding: Array.from(parseVectorText(row.query_embedding)),
    embeddingModel: row.embedding_model,
    arguments: row.arguments,
    resultIds: row.result_ids,
    createdAt: new Date(row.created_at).toISOString(),
  };
}

/** Deletes up to `batch` requests logged before `cutoff` (their feedback goes with them); returns how many. */
export async function purgeRecallRequestsBefore(q: Queryable, cutoff: Date, batch: number): Promise<number> {
  const result = await q.query(
    `DELETE FROM recall_requests WHERE (tenant_id, request_id) IN
       (SELECT tenant_id, request_id FROM recall_requests WHERE created_at < $1 ORDER BY created_at LIMIT $2)`,
    [cutoff.toISOString(), batch],
  );
  return result.rowCount;
}
