/**
 * SQL for sources (migration 0015, docs/sources.md): the served version of each source, the
 * ingestion waiting to replace it with its chunk drafts, and the swap that turns drafts into chunk
 * cells in one transaction. Every statement is scoped by tenant and project; offsets and lengths
 * are Unicode code points (PostgreSQL's characters).
 */
import type { SourceKind } from '../core/source-schemas.js';
import { cellTermsOf, tenantTermPrefix } from './lexical-terms.js';
import { liveRow } from './cell-conditions.js';
import type { Queryable } from './db.js';
import { isoText } from './sql-time.js';

export interface SourceKey {
  readonly tenantId: string;
  readonly project: string;
  readonly sourceId: string;
}

export type StoredSourceFormat = 'text' | 'markdown' | 'conversation';

export interface SourceRow {
  readonly source_id: string;
  readonly project: string;
  readonly kind: SourceKind;
  readonly format: StoredSourceFormat;
  readonly title: string | null;
  readonly metadata: Record<string, unknown>;
  readonly observation_date: string | null;
  readonly total_chars: number;
  readonly total_bytes: number;
  readonly chunk_count: number;
  readonly created_by: string;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface IngestionRow {
  readonly ingestion_id: string;
  readonly tenant_id: string;
  readonly project: string;
  readonly source_id: string;
  readonly kind: SourceKind;
  readonly format: StoredSourceFormat;
  readonly title: string | null;
  readonly metadata: Record<string, unknown>;
  readonly observation_date: string | null;
  readonly total_chars: number;
  readonly total_bytes: number;
  readonly created_by: string;
  readonly trust: number;
  readonly state: 'queued' | 'indexing' | 'failed';
  readonly chunks_total: number;
  readonly chunks_done: number;
  readonly failure: string | null;
  readonly lease_owner: string | null;
  readonly attempts: number;
  readonly created_at: string;
  readonly updated_at: string;
}

export const SUMMARY_COLUMNS = `source_id, project, kind, format, title, metadata, to_char(observation_date, 'YYYY-MM-DD') AS observation_date,
  total_chars, total_bytes, chunk_count, created_by, ${isoText('created_at')} AS created_at, ${isoText('updated_at')} AS updated_at`;

export const INGESTION_COLUMNS = `ingestion_id::text AS ingestion_id, tenant_id, project, source_id, kind, format, title, metadata,
  to_char(observation_date, 'YYYY-MM-DD') AS observation_date, total_chars, total_bytes, created_by, trust, state, chunks_total,
  chunks_done, failure, lease_owner, attempts, ${isoText('created_at')} AS created_at, ${isoText('updated_at')} AS updated_at`;

/** Serialises every write of one source (ingest, swap, delete) until the transaction ends; a new id has no row to lock yet. */
export async function lockSourceKey(tx: Queryable, key: SourceKey): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 15))', [JSON.stringify([key.tenantId, key.project, key.sourceId])]);
}

export async function findSource(q: Queryable, key: SourceKey): Promise<SourceRow | null> {
  const result = await q.query<SourceRow>(`SELECT ${SUMMARY_COLUMNS} FROM sources WHERE tenant_id = $1 AND project = $2 AND source_id = $3 AND ${liveRow()}`, [
    key.tenantId,
    key.project,
    key.sourceId,
  ]);
  return result.rows[0] ?? null;
}

/** The served version's fields and its characters [offset, offset + limit). */
export async function readSourceSlice(q: Queryable, key: SourceKey, offset: number, limit: number): Promise<(SourceRow & { readonly text: string }) | null> {
  const result = await q.query<SourceRow & { text: string }>(
    `SELECT ${SUMMARY_COLUMNS}, substring(body FROM $4::int + 1 FOR $5::int) AS text FROM sources WHERE tenant_id = $1 AND project = $2 AND source_id = $3 AND ${liveRow()}`,
    [key.tenantId, key.project, key.sourceId, offset, limit],
  );
  return result.rows[0] ?? null;
}

/** A pending (or failed) ingestion's fields and its characters [offset, offset + limit). */
export async function readIngestionSlice(q: Queryable, key: SourceKey, offset: number, limit: number): Promise<(IngestionRow & { readonly text: string }) | null> {
  const result = await q.query<IngestionRow & { text: string }>(
    `SELECT ${INGESTION_COLUMNS}, substring(body FROM $4::int + 1 FOR $5::int) AS text FROM source_ingestions WHERE tenant_id = $1 AND project = $2 AND source_id = $3 AND ${liveRow()}`,
    [key.tenantId, key.project, key.sourceId, offset, limit],
  );
  return result.rows[0] ?? null;
}

export async function findIngestion(q: Queryable, key: SourceKey): Promise<IngestionRow | null> {
  const result = await q.query<IngestionRow>(`SELECT ${INGESTION_COLUMNS} FROM source_ingestions WHERE tenant_id = $1 AND project = $2 AND source_id = $3 AND ${liveRow()}`, [
    key.tenantId,
    key.project,
    key.sourceId,
  ]);
  return result.rows[0] ?? null;
}

export async function findIngestionById(q: Queryable, ingestionId: string): Promise<IngestionRow | null> {
  const result = await q.query<IngestionRow>(`SELECT ${INGESTION_COLUMNS} FROM source_ingestions WHERE ingestion_id = $1`, [ingestionId]);
  return result.rows[0] ?? null;
}

/** Served sources of a project, newest first, after (created_at, source_id); returns up to limit + 1 rows. */
export async function listSources(
  q: Queryable,
  tenantId: string,
  project: string,
  kind: SourceKind | undefined,
  after: { readonly createdAt: string; readonly sourceId: string } | null,
  limit: number,
): Promise<SourceRow[]> {
  const params: unknown[] = [tenantId, project, kind ?? null, limit + 1];
  let keyset = '';
  if (after !== null) {
    params.push(after.createdAt, after.sourceId);
    keyset = 'AND (created_at, source_id) < ($5::timestamptz, $6)';
  }
  const result = await q.query<SourceRow>(
    `SELECT ${SUMMARY_COLUMNS} FROM sources WHERE tenant_id = $1 AND project = $2 AND ($3::text IS NULL OR kind = $3) AND ${liveRow()} ${keyset}
     ORDER BY created_at DESC, source_id DESC LIMIT $4`,
    params,
  );
  return result.rows;
}

export interface NewIngestion {
  readonly ingestionId: string;
  readonly key: SourceKey;
  readonly kind: SourceKind;
  readonly format: StoredSourceFormat;
  readonly title: string | null;
  readonly metadata: Record<string, unknown>;
  readonly observationDate: string | null;
  readonly body: string;
  readonly totalChars: number;
  readonly totalBytes: number;
  readonly createdBy: string;
  readonly trust: number;
  readonly state: 'queued' | 'indexing';
  readonly now: Date;
  /** When the source and its chunks are forgotten (docs/expiry.md); null: kept. */
  readonly expiresAt?: Date | null;
}

export interface ChunkDraft {
  readonly index: number;
  readonly content: string;
  readonly start: number;
  readonly end: number;
  readonly identifiers: readonly string[];
  /** pgvector text, or null when it is still to be embedded. */
  readonly embedding: string | null;
}

/** Drafts written per statement: bounds one statement's parameter at a few MiB. */
const DRAFTS_PER_STATEMENT = 500;

/** Writes the ingestion (replacing a pending one of the same source, whose drafts go with it) and its chunk drafts. */
export async function insertIngestion(tx: Queryable, ingestion: NewIngestion, drafts: readonly ChunkDraft[]): Promise<void> {
  const { key } = ingestion;
  await tx.query('DELETE FROM source_ingestions WHERE tenant_id = $1 AND project = $2 AND source_id = $3', [key.tenantId, key.project, key.sourceId]);
  const done = drafts.filter((draft) => draft.embedding !== null).length;
  await tx.query(
    `INSERT INTO source_ingestions (ingestion_id, tenant_id, project, source_id, kind, format, title, metadata, observation_date, body,
       total_chars, total_bytes, created_by, trust, state, chunks_total, chunks_done, created_at, updated_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9::date, $10, $11, $12, $13, $14, $15, $16, $17, $18, $18, $19)`,
    [
      ingestion.ingestionId,
      key.tenantId,
      key.project,
      key.sourceId,
      ingestion.kind,
      ingestion.format,
      ingestion.title,
      JSON.stringify(ingestion.metadata),
      ingestion.observationDate,
      ingestion.body,
      ingestion.totalChars,
      ingestion.totalBytes,
      ingestion.createdBy,
      ingestion.trust,
      ingestion.state,
      drafts.length,
      done,
      ingestion.now.toISOString(),
      ingestion.expiresAt?.toISOString() ?? null,
    ],
  );
  for (let at = 0; at < drafts.length; at += DRAFTS_PER_STATEMENT) {
    const batch = drafts.slice(at, at + DRAFTS_PER_STATEMENT).map((d) => ({ i: d.index, c: d.content, s: d.start, e: d.end, t: d.identifiers, v: d.embedding }));
    await tx.query(
      `INSERT INTO source_chunk_drafts (ingestion_id, chunk_index, content, char_start, char_end, identifiers, embedding)
       SELECT $1, r.i, r.c, r.s, r.e, r.t, r.v::vector FROM jsonb_to_recordset($2::jsonb) AS r(i int, c text, s int, e int, t text[], v text)`,
      [ingestion.ingestionId, JSON.stringify(batch)],
    );
  }
}

/** The ingestion row-locked for its swap, while `owner` holds it (null: whoever does). */
export async function lockIngestion(tx: Queryable, ingestionId: string, owner: string | null): Promise<IngestionRow | null> {
  const result = await tx.query<IngestionRow>(
    `SELECT ${INGESTION_COLUMNS} FROM source_ingestions WHERE ingestion_id = $1 AND state <> 'failed' AND ($2::text IS NULL OR lease_owner = $2) FOR UPDATE`,
    [ingestionId, owner],
  );
  return result.rows[0] ?? null;
}

/** What the swap inserted: its chunk cells, and the expiry (RFC 3339) they carry — the source's, which their diffs carry too. */
export interface InsertedChunks {
  readonly chunks: number;
  readonly expiresAt: string | null;
}

/** Chunk cells are Context cells of salience 0.5 (docs/sources.md); their author and trust are the ingestion's. */
export const CHUNK_CELL_TYPE = 'Context';
export const CHUNK_SALIENCE = 0.5;

/**
 * Turns the ingestion's drafts into chunk cells with their lexical terms — one statement for every
 * chunk, nothing of them sent back — makes the ingestion the served version of its source and drops
 * the ingestion (its drafts with it). Run inside the swap transaction, after the old chunks were
 * erased; returns how many chunk cells it inserted and their expiry.
 */
export async function insertChunksAndServe(tx: Queryable, ingestion: IngestionRow, now: Date): Promise<InsertedChunks> {
  const inserted = await tx.query<{ n: number; expires_at: string | null }>(
    `WITH added AS (
       INSERT INTO cells (node_id, tenant_id, project, content, cell_type, salience, source_agent, metadata, layer, embedding,
         reinforced_at, created_at, updated_at, valid_from, trust, source_id, chunk_index, char_start, char_end, expires_at)
       SELECT gen_random_uuid(), i.tenant_id, i.project, d.content, '${CHUNK_CELL_TYPE}', ${CHUNK_SALIENCE}, i.created_by, i.metadata, 'L0',
         d.embedding, $2, $2, $2, $2, i.trust, i.source_id, d.chunk_index, d.char_start, d.char_end, i.expires_at
       FROM source_chunk_drafts d JOIN source_ingestions i USING (ingestion_id)
       WHERE d.ingestion_id = $1
       ORDER BY d.chunk_index
       RETURNING node_id, chunk_index, content, expires_at),
     terms AS (
       INSERT INTO cell_tenant_terms (node_id, terms)
       SELECT a.node_id, ${cellTermsOf('$3::text', 'a.content', 'd.identifiers')}
       FROM added a JOIN source_chunk_drafts d ON d.ingestion_id = $1 AND d.chunk_index = a.chunk_index)
     SELECT count(*)::int AS n, ${isoText('max(expires_at)')} AS expires_at FROM added`,
    [ingestion.ingestion_id, now.toISOString(), tenantTermPrefix(ingestion.tenant_id)],
  );
  const chunks = Number(inserted.rows[0]?.n ?? 0);
  const expiresAt = inserted.rows[0]?.expires_at ?? null;
  await tx.query(
    `INSERT INTO sources (tenant_id, project, source_id, kind, format, title, metadata, observation_date, body, total_chars, total_bytes,
       chunk_count, created_by, created_at, updated_at, expires_at)
     SELECT tenant_id, project, source_id, kind, format, title, metadata, observation_date, body, total_chars, total_bytes, $2, created_by, $3, $3, expires_at
     FROM source_ingestions WHERE ingestion_id = $1
     ON CONFLICT (tenant_id, project, source_id) DO UPDATE SET kind = EXCLUDED.kind, format = EXCLUDED.format, title = EXCLUDED.title,
       metadata = EXCLUDED.metadata, observation_date = EXCLUDED.observation_date, body = EXCLUDED.body, total_chars = EXCLUDED.total_chars,
       total_bytes = EXCLUDED.total_bytes, chunk_count = EXCLUDED.chunk_count, created_by = EXCLUDED.created_by, updated_at = EXCLUDED.updated_at,
       expires_at = EXCLUDED.expires_at`,
    [ingestion.ingestion_id, chunks, now.toISOString()],
  );
  await tx.query('DELETE FROM source_ingestions WHERE ingestion_id = $1', [ingestion.ingestion_id]);
  return { chunks, expiresAt };
}

