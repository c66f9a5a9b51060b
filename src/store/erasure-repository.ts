/**
 * SQL of erasure (docs/forgetting.md): everything a set of cells of one tenant left in the
 * database — the cells, their promoted copies and the scene summaries made from them, their
 * lexical terms, relations, restatement records, reinforcement keys, learnt evidence, the recall
 * log's rows that answered them and the feedback naming or judging them, resource subscriptions and the previews of the diffs about them in every inbox — in one transaction, each
 * kind counted.
 */
import type { CellType } from '../core/cell-types.js';
import type { Queryable } from './db.js';

/** How many copies of each kind an erasure removed; a kind it removed nothing of is absent. */
export type ErasureCounts = Record<string, number>;

/** What becomes of the diffs about erased cells: emptied and kept as tombstones, or deleted (a project or tenant going whole). */
export type ErasedDiffs = 'tombstone' | 'delete';

/** A recipient that held a diff about an erased cell: it is told `deleted`, without text. */
export interface ErasureNotice {
  readonly recipient_agent: string;
  readonly node_id: string;
  readonly beacon_id: string;
  readonly similarity: number;
  readonly cell_type: CellType;
  readonly salience: number;
  readonly source_agent: string;
  readonly project: string;
  readonly scene_id: string | null;
  readonly source_id: string | null;
}

export interface ErasedCellSet {
  readonly counts: ErasureCounts;
  /** Empty when the diffs were deleted. */
  readonly notices: readonly ErasureNotice[];
}

/** Adds `more` into `into`, leaving out zeros. */
export function addCounts(into: ErasureCounts, more: ErasureCounts): ErasureCounts {
  for (const [kind, n] of Object.entries(more)) if (n > 0) into[kind] = (into[kind] ?? 0) + n;
  return into;
}

/**
 * Erases the tenant's cells named by `nodeIds` and every copy of their text. The set widens to the
 * copies of the same text: a cell's promoted L2 copy and the origin of a copy, and the summary of
 * a consolidated scene any of them belongs to. Locks the cells first, so a concurrent store that
 * restates or relates one of them waits and then finds it gone. Every lookup goes by index
 * (0032), so a batch costs what its cells hold, not what the database holds.
 */
export async function eraseCellSet(tx: Queryable, tenantId: string, nodeIds: readonly string[], diffs: ErasedDiffs, now: Date): Promise<ErasedCellSet> {
  if (nodeIds.length === 0) return { counts: {}, notices: [] };
  const cells = await tx.query<{ node_id: string; kind: string }>(
    `SELECT node_id::text AS node_id,
       CASE WHEN source_id IS NOT NULL THEN 'chunks' WHEN origin_node_id IS NOT NULL OR layer = 'L1' THEN 'copies'
            WHEN valid_until IS NOT NULL THEN 'versions' ELSE 'cells' END AS kind
     FROM cells WHERE tenant_id = $1 AND node_id = ANY(ARRAY(
       SELECT unnest($2::uuid[])
       UNION SELECT node_id FROM cells WHERE tenant_id = $1 AND origin_node_id = ANY($2::uuid[])
       UNION SELECT promoted_node_id FROM cells WHERE tenant_id = $1 AND node_id = ANY($2::uuid[]) AND promoted_node_id IS NOT NULL
       UNION SELECT origin_node_id FROM cells WHERE tenant_id = $1 AND node_id = ANY($2::uuid[]) AND origin_node_id IS NOT NULL
       UNION SELECT s.consolidated_node_id FROM cells c JOIN scenes s ON s.tenant_id = c.tenant_id AND s.scene_id = c.scene_id
             WHERE c.tenant_id = $1 AND c.node_id = ANY($2::uuid[]) AND s.consolidated_node_id IS NOT NULL))
     ORDER BY node_id FOR UPDATE`,
    [tenantId, nodeIds],
  );
  if (cells.rows.length === 0) return { counts: {}, notices: [] };
  const ids = cells.rows.map((row) => row.node_id);
  const counts: ErasureCounts = {};
  for (const row of cells.rows) counts[row.kind] = (counts[row.kind] ?? 0) + 1;
  const removed = async (kind: string, sql: string, params: readonly unknown[] = [tenantId, ids]): Promise<void> => {
    addCounts(counts, { [kind]: (await tx.query(sql, params)).rowCount });
  };
  const notices =
    diffs === 'tombstone'
      ? (
          await tx.query<ErasureNotice>(
            `SELECT DISTINCT ON (recipient_agent, node_id) recipient_agent, node_id::text AS node_id, beacon_id::text AS beacon_id, similarity,
               cell_type, salience, source_agent, project, scene_id::text AS scene_id, source_id
             FROM diffs WHERE tenant_id = $1 AND node_id = ANY($2::uuid[]) AND op <> 'deleted'
             ORDER BY recipient_agent, node_id, seq DESC`,
            [tenantId, ids],
          )
        ).rows
      : [];
  // Terms carry no tenant_id: the ids were read from the tenant's own cells above.
  await removed('lexical_terms', `DELETE FROM cell_tenant_terms WHERE node_id = ANY($1::uuid[])`, [ids]);
  await removed('relations', `DELETE FROM cell_relations WHERE tenant_id = $1 AND (from_node_id = ANY($2::uuid[]) OR to_node_id = ANY($2::uuid[]))`);
  await removed('restatements', `DELETE FROM corroborations WHERE tenant_id = $1 AND node_id = ANY($2::uuid[])`);
  await removed('reinforcement_keys', `DELETE FROM reinforcement_keys WHERE tenant_id = $1 AND node_id = ANY($2::uuid[])`);
  // What recall learnt for these cells from judged queries (0021): the queries' embeddings and texts.
  await removed('learnt_evidence', `DELETE FROM cell_evidence WHERE tenant_id = $1 AND node_id = ANY($2::uuid[])`);
  // Feedback naming one of them as ground truth, or judging a request that ranked one (0020): its texts go with the request's.
  await removed(
    'feedback',
    `DELETE FROM recall_feedback f WHERE f.tenant_id = $1 AND (f.truth_cell_ids && $2::uuid[] OR f.ground_truth_ids && $2::text[]
       OR f.request_id IN (SELECT r.request_id FROM recall_requests r WHERE r.tenant_id = $1 AND r.result_ids && $2::uuid[]))`,
  );
  // The recall log's rows that answered one of them (0019): their query texts and rankings name it.
  await removed('recall_log', `DELETE FROM recall_requests WHERE tenant_id = $1 AND result_ids && $2::uuid[]`);
  await removed('resource_subscriptions', `DELETE FROM resource_subscriptions WHERE tenant_id = $1 AND resource = ANY(SELECT 'cell:' || id FROM unnest($2::text[]) AS id)`);
  await tx.query(`UPDATE scenes SET consolidated_at = NULL, consolidated_node_id = NULL WHERE tenant_id = $1 AND consolidated_node_id = ANY($2::uuid[])`, [tenantId, ids]);
  if (diffs === 'tombstone') {
    await removed(
      'diff_previews',
      `UPDATE diffs SET preview = '', erased_at = $3 WHERE tenant_id = $1 AND node_id = ANY($2::uuid[]) AND erased_at IS NULL AND preview <> ''`,
      [tenantId, ids, now.toISOString()],
    );
  } else {
    await removed('diffs', `DELETE FROM diffs WHERE tenant_id = $1 AND node_id = ANY($2::uuid[])`);
  }
  await tx.query(`DELETE FROM cells WHERE tenant_id = $1 AND node_id = ANY($2::uuid[])`, [tenantId, ids]);
  return { counts, notices };
}

/** Every version of the supersession chain `nodeId` belongs to (itself included), oldest first; empty when the tenant has no such cell. */
export async function supersessionChainIds(q: Queryable, tenantId: string, nodeId: string): Promise<string[]> {
  const result = await q.query<{ node_id: string }>(
    `WITH RECURSIVE back AS (
       SELECT node_id, supersedes, 0 AS depth FROM cells WHERE tenant_id = $1 AND node_id = $2
       UNION SELECT c.node_id, c.supersedes, b.depth - 1 FROM cells c JOIN back b ON c.tenant_id = $1 AND c.node_id = b.supersedes),
     forth AS (
       SELECT node_id, superseded_by, 0 AS depth FROM cells WHERE tenant_id = $1 AND node_id = $2
       UNION SELECT c.node_id, c.superseded_by, f.depth + 1 FROM cells c JOIN forth f ON c.tenant_id = $1 AND c.node_id = f.superseded_by)
     SELECT node_id::text AS node_id FROM (SELECT node_id, depth FROM back UNION SELECT node_id, depth FROM forth) AS chain ORDER BY depth`,
    [tenantId, nodeId],
  );
  return result.rows.map((row) => row.node_id);
}

/** Which cells a bulk erasure takes next: the tenant's, of one author or one project. */
export interface CellBatchFilter {
  readonly agent?: string;
  readonly project?: string;
  readonly sourceId?: string;
}

/** Up to `limit` ids of the tenant's cells matching the filter. */
export async function nextCellBatch(q: Queryable, tenantId: string, filter: CellBatchFilter, limit: number): Promise<string[]> {
  const result = await q.query<{ node_id: string }>(
    `SELECT node_id::text AS node_id FROM cells
     WHERE tenant_id = $1 AND ($2::text IS NULL OR source_agent = $2) AND ($3::text IS NULL OR project = $3) AND ($4::text IS NULL OR source_id = $4)
     LIMIT $5`,
    [tenantId, filter.agent ?? null, filter.project ?? null, filter.sourceId ?? null, limit],
  );
  return result.rows.map((row) => row.node_id);
}

/** A keyset page of an erasure's claim: up to `limit` ids of the tenant's cells matching the filter, in id order, after `after` (null: from the first). */
export async function claimCellIds(q: Queryable, tenantId: string, filter: CellBatchFilter, after: string | null, limit: number): Promise<string[]> {
  const result = await q.query<{ node_id: string }>(
    `SELECT node_id::text AS node_id FROM cells
     WHERE tenant_id = $1 AND ($2::text IS NULL OR source_agent = $2) AND ($3::text IS NULL OR project = $3) AND ($4::uuid IS NULL OR node_id > $4::uuid)
     ORDER BY node_id LIMIT $5`,
    [tenantId, filter.agent ?? null, filter.project ?? null, after, limit],
  );
  return result.rows.map((row) => row.node_id);
}
