/**
 * Pending ingestions (docs/sources.md, "Ingestion", "Limits"): what a tenant's hold, and the
 * background lifecycle — claiming one under a lease, the sweep's due list round-robin across
 * tenants, its drafts embedded batch by batch with the lease renewed, and failing it with its reason.
 */
import type { Queryable } from './db.js';
import { INGESTION_COLUMNS, type IngestionRow, type SourceKey } from './source-repository.js';
import type { VectorParam } from './vector-param.js';

/** What a tenant's pending (queued or indexing) ingestions hold, but the one of `except`'s source (a new ingestion replaces it). */
export interface PendingLoad {
  readonly ingestions: number;
  readonly bytes: number;
  readonly chunks: number;
}

export async function pendingLoad(q: Queryable, except: SourceKey): Promise<PendingLoad> {
  const result = await q.query<{ ingestions: number; bytes: number; chunks: number }>(
    `SELECT count(*)::int AS ingestions, coalesce(sum(total_bytes), 0)::float8 AS bytes, coalesce(sum(chunks_total), 0)::float8 AS chunks
     FROM source_ingestions WHERE tenant_id = $1 AND state <> 'failed' AND NOT (project = $2 AND source_id = $3)`,
    [except.tenantId, except.project, except.sourceId],
  );
  const row = result.rows[0];
  return { ingestions: Number(row?.ingestions ?? 0), bytes: Number(row?.bytes ?? 0), chunks: Number(row?.chunks ?? 0) };
}

/**
 * Takes the ingestion for `owner` until `leaseUntil` when no live lease holds it (a process that
 * stopped leaves its lease to expire); null when it is taken, finished or failed. A claim counts
 * as an attempt.
 */
export async function claimIngestion(q: Queryable, ingestionId: string, owner: string, now: Date, leaseUntil: Date): Promise<IngestionRow | null> {
  const result = await q.query<IngestionRow>(
    `UPDATE source_ingestions SET state = 'indexing', lease_owner = $2, lease_expires_at = $4, attempts = attempts + 1, updated_at = $3
     WHERE ingestion_id = $1 AND state <> 'failed' AND (lease_expires_at IS NULL OR lease_expires_at < $3)
     RETURNING ${INGESTION_COLUMNS}`,
    [ingestionId, owner, now.toISOString(), leaseUntil.toISOString()],
  );
  return result.rows[0] ?? null;
}

/**
 * Ingestions no live lease holds (never claimed, or their process stopped), taken round-robin
 * across tenants: every tenant's oldest due one, then every tenant's second, and so on — one
 * tenant's backlog cannot starve another's.
 */
export async function dueIngestions(q: Queryable, now: Date, limit: number): Promise<string[]> {
  const result = await q.query<{ ingestion_id: string }>(
    `SELECT ingestion_id::text AS ingestion_id FROM (
       SELECT ingestion_id, lease_expires_at, created_at,
         row_number() OVER (PARTITION BY tenant_id ORDER BY lease_expires_at NULLS FIRST, created_at, ingestion_id) AS turn
       FROM source_ingestions WHERE state <> 'failed' AND (lease_expires_at IS NULL OR lease_expires_at < $1)) AS due
     ORDER BY turn, lease_expires_at NULLS FIRST, created_at, ingestion_id LIMIT $2`,
    [now.toISOString(), limit],
  );
  return result.rows.map((row) => row.ingestion_id);
}

/** Drafts still to embed, in order. */
export async function draftsToEmbed(q: Queryable, ingestionId: string, limit: number): Promise<{ chunk_index: number; content: string }[]> {
  const result = await q.query<{ chunk_index: number; content: string }>(
    'SELECT chunk_index, content FROM source_chunk_drafts WHERE ingestion_id = $1 AND embedding IS NULL ORDER BY chunk_index LIMIT $2',
    [ingestionId, limit],
  );
  return result.rows;
}

/** Stores embedded drafts and renews the lease, only while `owner` still holds it; false when it does not (taken over, replaced, deleted). */
export async function saveDraftEmbeddings(
  q: Queryable,
  ingestionId: string,
  owner: string,
  embedded: readonly { readonly index: number; readonly embedding: VectorParam }[],
  now: Date,
  leaseUntil: Date,
): Promise<boolean> {
  // Each vector is its own binary parameter: as text, PGlite spent ~0.6 ms of CPU parsing each minilm vector (vector-param.ts).
  // Slots for a power of two of vectors, the rest null (unnest pairs them with no index): a few statement texts, not one per batch length.
  const slots = 2 ** Math.ceil(Math.log2(Math.max(1, embedded.length)));
  const vectors = `ARRAY[${Array.from({ length: slots }, (_, i) => `$${6 + i}::vector`).join(', ')}]`;
  // The ingestion row is locked first; chunks_done grows by the drafts this call saved (no recount of the drafts per batch).
  // The drafts are found by primary key (= ANY): the drafts table has no statistics, and a join alone was planned as a scan of every draft.
  const result = await q.query<{ kept: boolean }>(
    `WITH held AS (
       SELECT ingestion_id FROM source_ingestions WHERE ingestion_id = $1 AND lease_owner = $2 AND state = 'indexing' FOR UPDATE),
     batch AS (SELECT * FROM unnest($5::int[], ${vectors}) AS b (chunk_index, embedding)),
     saved AS (
       UPDATE source_chunk_drafts d SET embedding = b.embedding FROM batch b
       WHERE d.ingestion_id = $1 AND d.chunk_index = ANY($5::int[]) AND d.chunk_index = b.chunk_index AND d.embedding IS NULL
         AND EXISTS (SELECT 1 FROM held) RETURNING 1),
     owned AS (
       UPDATE source_ingestions SET lease_expires_at = $4, updated_at = $3, chunks_done = chunks_done + (SELECT count(*) FROM saved)
       WHERE ingestion_id IN (SELECT ingestion_id FROM held) RETURNING 1)
     SELECT EXISTS (SELECT 1 FROM owned) AS kept`,
    [ingestionId, owner, now.toISOString(), leaseUntil.toISOString(), embedded.map((e) => e.index), ...Array.from({ length: slots }, (_, i) => embedded[i]?.embedding ?? null)],
  );
  return result.rows[0]?.kept === true;
}

/**
 * Marks the ingestion failed with its reason (while `owner` holds it, or whoever does when owner is
 * null) and drops its body and chunk drafts: a failed ingestion keeps its fields and reason for
 * status, never the text it could not index.
 */
export async function failIngestion(q: Queryable, ingestionId: string, owner: string | null, reason: string, now: Date): Promise<void> {
  await q.query(
    `WITH failed AS (
       UPDATE source_ingestions SET state = 'failed', failure = $3, body = '', lease_owner = NULL, lease_expires_at = NULL, updated_at = $4
       WHERE ingestion_id = $1 AND ($2::text IS NULL OR lease_owner = $2) AND state <> 'failed' RETURNING ingestion_id)
     DELETE FROM source_chunk_drafts WHERE ingestion_id IN (SELECT ingestion_id FROM failed)`,
    [ingestionId, owner, reason, now.toISOString()],
  );
}

export async function countDraftsToEmbed(q: Queryable, ingestionId: string): Promise<number> {
  const result = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM source_chunk_drafts WHERE ingestion_id = $1 AND embedding IS NULL', [ingestionId]);
  return result.rows[0]?.n ?? 0;
}
