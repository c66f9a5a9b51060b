/**
 * Reads of sources by position and by title (the HydraDB toolset, docs/coming-from-hydradb.md):
 * a numbered page with the count of the whole family, the first chunk a subgraph starts from, and
 * the source ids whose titles a recall names. Every statement is scoped by tenant and project.
 */
import type { SourceKind } from '../core/source-schemas.js';
import { liveRow } from './cell-conditions.js';
import type { Queryable } from './db.js';
import { SUMMARY_COLUMNS, type SourceKey, type SourceRow } from './source-repository.js';

export interface NumberedSources {
  readonly rows: readonly SourceRow[];
  /** Served sources of the family (and of `ids`, when given) in the project. */
  readonly total: number;
}

/** Served sources of one kind in a project, newest first, rows [offset, offset + limit), with their total. */
export async function numberedSources(
  q: Queryable,
  tenantId: string,
  project: string,
  kind: SourceKind,
  ids: readonly string[] | null,
  offset: number,
  limit: number,
): Promise<NumberedSources> {
  const where = `tenant_id = $1 AND project = $2 AND kind = $3 AND ($4::text[] IS NULL OR source_id = ANY($4::text[])) AND ${liveRow()}`;
  const params = [tenantId, project, kind, ids];
  const [rows, count] = await Promise.all([
    q.query<SourceRow>(`SELECT ${SUMMARY_COLUMNS} FROM sources WHERE ${where} ORDER BY created_at DESC, source_id DESC OFFSET $5 LIMIT $6`, [...params, offset, limit]),
    q.query<{ n: number }>(`SELECT count(*)::int AS n FROM sources WHERE ${where}`, params),
  ]);
  return { rows: rows.rows, total: count.rows[0]?.n ?? 0 };
}

/** The cell of a served source's first live chunk; null when the source has none (or is not served). */
export async function firstChunkOf(q: Queryable, key: SourceKey): Promise<string | null> {
  const result = await q.query<{ node_id: string }>(
    `SELECT node_id::text AS node_id FROM cells WHERE tenant_id = $1 AND project = $2 AND source_id = $3 AND ${liveRow()} ORDER BY chunk_index LIMIT 1`,
    [key.tenantId, key.project, key.sourceId],
  );
  return result.rows[0]?.node_id ?? null;
}

/** Ids of the served sources whose title equals one of these, case-insensitively, in these projects (null: every project). */
export async function sourceIdsTitled(q: Queryable, tenantId: string, projects: readonly string[] | null, titles: readonly string[]): Promise<string[]> {
  const result = await q.query<{ source_id: string }>(
    `SELECT DISTINCT source_id FROM sources WHERE tenant_id = $1 AND ($2::text[] IS NULL OR project = ANY($2::text[])) AND lower(title) = ANY($3::text[]) AND ${liveRow()}`,
    [tenantId, projects, titles.map((title) => title.toLowerCase())],
  );
  return result.rows.map((row) => row.source_id);
}
