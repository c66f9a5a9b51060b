/**
 * SQL of the expiry sweep (docs/expiry.md): the cells and sources whose expires_at has passed,
 * oldest expiry first, across tenants (a system job; the erasure path then deletes each tenant's
 * batch). The partial indexes of migration 0031 hold only expiring rows, so a pass with nothing
 * due reads nothing else.
 */
import type { Queryable } from './db.js';

export interface ExpiredCell {
  readonly tenant_id: string;
  readonly node_id: string;
}

export interface ExpiredSource {
  readonly tenant_id: string;
  readonly project: string;
  readonly source_id: string;
}

/** Up to `limit` expired cells that are no chunk of a source (a source's chunks go with it). */
export async function expiredCells(q: Queryable, limit: number): Promise<ExpiredCell[]> {
  const result = await q.query<ExpiredCell>(
    `SELECT tenant_id, node_id::text AS node_id FROM cells
     WHERE expires_at IS NOT NULL AND expires_at <= now() AND source_id IS NULL ORDER BY expires_at LIMIT $1`,
    [limit],
  );
  return result.rows;
}

/** Up to `limit` expired sources: the served ones, and ingestions still pending of a source never served. */
export async function expiredSources(q: Queryable, limit: number): Promise<ExpiredSource[]> {
  const result = await q.query<ExpiredSource>(
    `SELECT tenant_id, project, source_id FROM (
       (SELECT tenant_id, project, source_id, expires_at FROM sources WHERE expires_at IS NOT NULL AND expires_at <= now() ORDER BY expires_at LIMIT $1)
       UNION
       (SELECT tenant_id, project, source_id, expires_at FROM source_ingestions WHERE expires_at IS NOT NULL AND expires_at <= now() LIMIT $1)
     ) AS due ORDER BY expires_at LIMIT $1`,
    [limit],
  );
  return result.rows;
}
