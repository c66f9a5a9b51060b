/**
 * SQL of what an erasure removes besides cells (docs/forgetting.md): a source's rows, what an
 * agent wrote outside its cells, the rest of a project, and every row of a tenant — each counted.
 * The cells themselves go through eraseCellSet (erasure-repository.ts) first.
 */
import type { Queryable } from './db.js';
import { addCounts, type ErasureCounts } from './erasure-repository.js';

const count = async (q: Queryable, kind: string, sql: string, params: readonly unknown[]): Promise<ErasureCounts> => ({ [kind]: (await q.query(sql, params)).rowCount });

/** A source's served version and any pending ingestion of it (its drafts go with it, by foreign key). */
export async function eraseSourceRows(tx: Queryable, tenantId: string, project: string, sourceId: string): Promise<ErasureCounts> {
  const params = [tenantId, project, sourceId];
  return addCounts(addCounts({}, await count(tx, 'sources', `DELETE FROM sources WHERE tenant_id = $1 AND project = $2 AND source_id = $3`, params)), await count(tx, 'source_ingestions', `DELETE FROM source_ingestions WHERE tenant_id = $1 AND project = $2 AND source_id = $3`, params));
}

/**
 * What an agent wrote besides its cells: its restatements of others' cells (and their replay
 * keys), the relations it declared, its recalls and queries (the recall log) and its feedback, the evidence its judged queries left on others' cells, its
 * beacons' texts, its sources and pending ingestions, and
 * the titles of the scenes it opened (the scenes stay: other agents' cells may be in them).
 */
export async function eraseAgentWritings(tx: Queryable, tenantId: string, agent: string): Promise<ErasureCounts> {
  const params = [tenantId, agent];
  const counts: ErasureCounts = {};
  addCounts(counts, await count(tx, 'restatements', `DELETE FROM corroborations WHERE tenant_id = $1 AND agent = $2`, params));
  addCounts(counts, await count(tx, 'reinforcement_keys', `DELETE FROM reinforcement_keys WHERE tenant_id = $1 AND agent = $2`, params));
  addCounts(counts, await count(tx, 'relations', `DELETE FROM cell_relations WHERE tenant_id = $1 AND created_by = $2`, params));
  addCounts(counts, await count(tx, 'learnt_evidence', `DELETE FROM cell_evidence WHERE tenant_id = $1 AND agent = $2`, params));
  addCounts(counts, await count(tx, 'feedback', `DELETE FROM recall_feedback f WHERE f.tenant_id = $1 AND (f.agent = $2 OR f.request_id IN (SELECT request_id FROM recall_requests WHERE tenant_id = $1 AND agent = $2))`, params));
  addCounts(counts, await count(tx, 'recall_log', `DELETE FROM recall_requests WHERE tenant_id = $1 AND agent = $2`, params));
  addCounts(counts, await count(tx, 'beacons', `DELETE FROM beacons WHERE tenant_id = $1 AND owner_agent = $2`, params));
  addCounts(counts, await count(tx, 'sources', `DELETE FROM sources WHERE tenant_id = $1 AND created_by = $2`, params));
  addCounts(counts, await count(tx, 'source_ingestions', `DELETE FROM source_ingestions WHERE tenant_id = $1 AND created_by = $2`, params));
  addCounts(counts, await count(tx, 'scene_titles', `UPDATE scenes SET title = NULL WHERE tenant_id = $1 AND created_by = $2 AND title IS NOT NULL`, params));
  return counts;
}

/** The rest of a project once its cells are gone: diffs still about it, sessions, scenes, the beacons watching only it, sources and ingestions. */
export async function eraseProjectRest(tx: Queryable, tenantId: string, project: string): Promise<ErasureCounts> {
  const params = [tenantId, project];
  const counts: ErasureCounts = {};
  for (const table of ['diffs', 'sessions', 'scenes', 'beacons', 'sources', 'source_ingestions']) {
    addCounts(counts, await count(tx, table, `DELETE FROM ${table} WHERE tenant_id = $1 AND project = $2`, params));
  }
  return counts;
}

/** Tables a tenant erasure keeps: the tenant itself, its (revoked) keys, its receipts (all but the erasure's own, see below) and the pending confirmations. */
const KEPT_BY_TENANT_ERASURE = new Set(['tenants', 'api_keys', 'erasure_receipts', 'tenant_erasure_confirmations']);

/** The words a receipt uses for rows of these tables; any other table is named as itself. */
const KIND_OF_TABLE: Readonly<Record<string, string>> = { corroborations: 'restatements', cell_relations: 'relations', cell_evidence: 'learnt_evidence', recall_requests: 'recall_log', recall_feedback: 'feedback' };

/**
 * Every table of the schema with a tenant_id column, from the catalog, so a table added later is
 * erased too without anyone remembering to list it. Cells are erased before (eraseCellSet).
 */
export async function tenantTables(q: Queryable): Promise<string[]> {
  const result = await q.query<{ table_name: string }>(
    `SELECT c.relname AS table_name FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
     WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND a.attname = 'tenant_id' AND NOT a.attisdropped
     ORDER BY c.relname`,
  );
  return result.rows.map((row) => row.table_name).filter((table) => table !== 'cells' && !KEPT_BY_TENANT_ERASURE.has(table));
}

/** Deletes up to `limit` of the tenant's rows of one table; returns its kind and how many went (0: none left). */
export async function eraseTenantRows(tx: Queryable, table: string, tenantId: string, limit: number): Promise<ErasureCounts> {
  const name = table.replaceAll('"', '""');
  return count(tx, KIND_OF_TABLE[table] ?? table, `DELETE FROM "${name}" WHERE ctid = ANY(ARRAY(SELECT ctid FROM "${name}" WHERE tenant_id = $1 LIMIT $2))`, [tenantId, limit]);
}

/** Revokes every active key of the tenant; returns their ids (the authenticator's cache forgets them). */
export async function revokeTenantKeys(tx: Queryable, tenantId: string, now: Date): Promise<string[]> {
  const result = await tx.query<{ key_id: string }>(`UPDATE api_keys SET revoked_at = $2 WHERE tenant_id = $1 AND revoked_at IS NULL RETURNING key_id::text AS key_id`, [
    tenantId,
    now.toISOString(),
  ]);
  return result.rows.map((row) => row.key_id);
}

/**
 * Deletes the tenant's earlier receipts: the one place the append-only trigger (0023) lets a
 * DELETE through, for this tenant and this transaction only. The caller writes the erasure's own
 * receipt in the same transaction.
 */
export async function eraseTenantReceipts(tx: Queryable, tenantId: string): Promise<ErasureCounts> {
  await tx.query(`SELECT set_config('hyphae.erasing_tenant', $1, true)`, [tenantId]);
  const counts = await count(tx, 'receipts', `DELETE FROM erasure_receipts WHERE tenant_id = $1`, [tenantId]);
  await tx.query(`SELECT set_config('hyphae.erasing_tenant', '', true)`);
  return counts;
}
