/** SQL for cells (memory nodes). Every statement is scoped by tenant_id. */
import type { CellType, Layer } from '../core/cell-types.js';
import { identifierTokens } from '../core/identifier-tokens.js';
import { CellConditions, liveRow, type Validity } from './cell-conditions.js';
import { CELL_COLUMNS, cellColumns, withEmbedding, type CellRow, type CellWithEmbedding } from './cell-row.js';
import type { Queryable } from './db.js';
import { keysetPage, type KeysetPosition } from './sql/keyset-page.js';
import { cellTermsOf, tenantTermPrefix } from './lexical-terms.js';
import { CARRIED_COLUMNS, carriedParams, carriedPlaceholders, type StoreCarried } from './store-carried.js';
import type { VectorParam } from './vector-param.js';

export interface NewCell extends StoreCarried {
  readonly nodeId: string;
  readonly tenantId: string;
  readonly project: string;
  readonly cellType: CellType;
  readonly sourceAgent: string;
  readonly idempotencyKey: string | null;
  readonly layer: Layer;
  readonly originNodeId: string | null;
  /** The current cell this one replaces (markSuperseded closes it in the same transaction). */
  readonly supersedes?: string | null;
  /** The author's trust (its key's); restatements by other agents raise it. */
  readonly trust: number;
  /** When the cell is forgotten (docs/expiry.md); null or absent: kept. */
  readonly expiresAt?: Date | null;
  readonly embedding: VectorParam;
  readonly now: Date;
}

/**
 * The insert of a cell and its lexical terms (stems and identifier tokens, lexical-terms.ts) as one
 * statement, with `extra` columns after the cell's (they read `cell`; parameters from $22):
 * relation-repository.ts declares a new cell's relations in the same statement.
 */
export function cellInsertSql(extra = ''): string {
  return `WITH cell AS (
       INSERT INTO cells (node_id, tenant_id, project, ${CARRIED_COLUMNS}, cell_type, source_agent, idempotency_key, layer,
         origin_node_id, embedding, reinforced_at, created_at, updated_at, valid_from, supersedes, trust, expires_at)
       VALUES ($1, $2, $3, ${carriedPlaceholders(4)}, $10, $11, $12, $13, $14, $15::vector, $16, $16, $16, $16, $17, $18, $21)
       ON CONFLICT (tenant_id, source_agent, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
       RETURNING *),
     terms AS (INSERT INTO cell_tenant_terms (node_id, terms) SELECT node_id, ${cellTermsOf('$20::text', '$4', '$19::text[]')} FROM cell)
     SELECT ${CELL_COLUMNS}${extra} FROM cell`;
}

/** The parameters $1–$21 of cellInsertSql: $2 the tenant, $4 the content, $11 the author, $16 the instant. */
export function cellInsertParams(cell: NewCell): unknown[] {
  return [
    cell.nodeId,
    cell.tenantId,
    cell.project,
    ...carriedParams(cell),
    cell.cellType,
    cell.sourceAgent,
    cell.idempotencyKey,
    cell.layer,
    cell.originNodeId,
    cell.embedding,
    cell.now.toISOString(),
    cell.supersedes ?? null,
    cell.trust,
    identifierTokens(cell.content),
    tenantTermPrefix(cell.tenantId),
    cell.expiresAt?.toISOString() ?? null,
  ];
}

const INSERT_CELL_SQL = cellInsertSql();

/** Inserts a cell and its lexical terms in one statement; returns null when the (tenant, agent, idempotency key) already exists. */
export async function insertCell(q: Queryable, cell: NewCell): Promise<CellRow | null> {
  const result = await q.query<CellRow>(INSERT_CELL_SQL, cellInsertParams(cell));
  return result.rows[0] ?? null;
}

/** The cell, row-locked for the rest of the transaction (supersession reads and closes it); null when gone or expired. */
export async function lockCell(q: Queryable, tenantId: string, nodeId: string): Promise<CellRow | null> {
  const result = await q.query<CellRow>(`SELECT ${CELL_COLUMNS} FROM cells WHERE tenant_id = $1 AND node_id = $2 AND ${liveRow()} FOR UPDATE`, [
    tenantId,
    nodeId,
  ]);
  return result.rows[0] ?? null;
}

/**
 * Closes a current cell as replaced by `successorId` at `now`, and its L2 copy with it (a promoted
 * copy of a superseded cell is superseded too). Returns how many rows it closed.
 */
export async function markSuperseded(q: Queryable, tenantId: string, nodeId: string, successorId: string, now: Date): Promise<number> {
  const result = await q.query(
    `UPDATE cells SET valid_until = $4, superseded_by = $3, updated_at = $4
     WHERE tenant_id = $1 AND valid_until IS NULL
       AND (node_id = $2 OR node_id = (SELECT promoted_node_id FROM cells WHERE tenant_id = $1 AND node_id = $2))`,
    [tenantId, nodeId, successorId, now.toISOString()],
  );
  return result.rowCount ?? 0;
}

/** Every version of the cell's chain (the cell, what it replaced, what replaced it), oldest first. */
export async function cellHistory(q: Queryable, tenantId: string, nodeId: string): Promise<CellRow[]> {
  const result = await q.query<CellRow>(
    `WITH RECURSIVE
       back AS (
         SELECT node_id, supersedes, 0 AS depth FROM cells WHERE tenant_id = $1 AND node_id = $2
         UNION ALL
         SELECT c.node_id, c.supersedes, back.depth - 1 FROM cells c JOIN back ON c.tenant_id = $1 AND c.node_id = back.supersedes
       ),
       forward AS (
         SELECT node_id, superseded_by, 0 AS depth FROM cells WHERE tenant_id = $1 AND node_id = $2
         UNION ALL
         SELECT c.node_id, c.superseded_by, forward.depth + 1 FROM cells c
         JOIN forward ON c.tenant_id = $1 AND c.node_id = forward.superseded_by AND c.supersedes = forward.node_id
       ),
       chain AS (SELECT node_id, depth FROM back UNION SELECT node_id, depth FROM forward)
     SELECT ${CELL_COLUMNS} FROM cells JOIN chain USING (node_id) WHERE cells.tenant_id = $1 AND ${liveRow('cells')} ORDER BY chain.depth`,
    [tenantId, nodeId],
  );
  return result.rows;
}

/** The cell a store with this key wrote — or reinforced (reinforcement_keys): its replay returns that cell. */
export async function findCellByIdempotencyKey(q: Queryable, tenantId: string, agent: string, key: string): Promise<CellRow | null> {
  const result = await q.query<CellRow>(
    `SELECT ${CELL_COLUMNS} FROM cells WHERE tenant_id = $1 AND ${liveRow()} AND (
       (source_agent = $2 AND idempotency_key = $3)
       OR node_id = (SELECT r.node_id FROM reinforcement_keys r WHERE r.tenant_id = $1 AND r.agent = $2 AND r.idempotency_key = $3))
     LIMIT 1`,
    [tenantId, agent, key],
  );
  return result.rows[0] ?? null;
}

export async function findCell(q: Queryable, tenantId: string, nodeId: string): Promise<CellRow | null> {
  const result = await q.query<CellRow>(`SELECT ${CELL_COLUMNS} FROM cells WHERE tenant_id = $1 AND node_id = $2 AND ${liveRow()}`, [tenantId, nodeId]);
  return result.rows[0] ?? null;
}

export async function findCells(q: Queryable, tenantId: string, nodeIds: readonly string[]): Promise<CellRow[]> {
  if (nodeIds.length === 0) return [];
  const result = await q.query<CellRow>(`SELECT ${CELL_COLUMNS} FROM cells WHERE tenant_id = $1 AND node_id = ANY($2::uuid[]) AND ${liveRow()}`, [
    tenantId,
    nodeIds,
  ]);
  return result.rows;
}

export interface CellListFilter {
  readonly validity?: Validity;
  /** Projects the caller may read; null = every project of the tenant. */
  readonly projects: readonly string[] | null;
  readonly project?: string;
  readonly sceneId?: string;
  readonly cellType?: CellType;
  readonly layer?: Layer;
  /** Only cells this agent stored. */
  readonly author?: string;
}

/** Newest first, keyset-paginated on (created_at, node_id). Returns up to limit + 1 rows. */
export async function listCells(
  q: Queryable,
  tenantId: string,
  filter: CellListFilter,
  after: KeysetPosition | null,
  limit: number,
): Promise<CellRow[]> {
  const where = new CellConditions([tenantId], ['tenant_id = $1'])
    .add((n) => `project = ANY($${n}::text[])`, filter.projects ?? undefined)
    .add((n) => `project = $${n}`, filter.project)
    .add((n) => `scene_id = $${n}`, filter.sceneId)
    .add((n) => `cell_type = $${n}`, filter.cellType)
    .add((n) => `layer = $${n}`, filter.layer)
    .add((n) => `source_agent = $${n}`, filter.author)
    .validity(filter.validity);
  const page = keysetPage(where, { createdAt: 'created_at', id: 'node_id', direction: 'newest-first' }, after, limit);
  const result = await q.query<CellRow>(`SELECT ${CELL_COLUMNS} FROM cells WHERE ${where.sql} ${page}`, where.params);
  return result.rows;
}

export interface BulkForgetFilter {
  /** Projects the caller may read; null = every project of the tenant. */
  readonly projects: readonly string[] | null;
  readonly sceneId?: string;
  readonly sourceRefLocator?: string;
  readonly sourceRefKind?: string;
}

/** Up to `limit` ids of cells matching the filter, oldest first (so repeated forgets make progress); erasure takes them from there. */
export async function cellIdsWhere(q: Queryable, tenantId: string, filter: BulkForgetFilter, limit: number): Promise<string[]> {
  const where = new CellConditions([tenantId], ['tenant_id = $1'])
    .add((n) => `project = ANY($${n}::text[])`, filter.projects ?? undefined)
    .add((n) => `scene_id = $${n}`, filter.sceneId)
    .add((n) => `source_ref->>'locator' = $${n}`, filter.sourceRefLocator)
    .add((n) => `source_ref->>'kind' = $${n}`, filter.sourceRefKind);
  const limitAt = where.bind(limit);
  const result = await q.query<{ node_id: string }>(
    `SELECT node_id::text AS node_id FROM cells WHERE ${where.sql} ORDER BY created_at, node_id LIMIT $${limitAt}`,
    where.params,
  );
  return result.rows.map((row) => row.node_id);
}

export interface HitCount {
  readonly tenantId: string;
  readonly nodeId: string;
  readonly count: number;
}

/** Adds batched hits and reinforces the cells; returns the updated rows (for the promotion check). */
export async function applyHits(q: Queryable, hits: readonly HitCount[], now: Date): Promise<CellRow[]> {
  if (hits.length === 0) return [];
  const batch = JSON.stringify(hits.map((h) => ({ tenant_id: h.tenantId, node_id: h.nodeId, n: h.count })));
  const result = await q.query<CellRow>(
    `UPDATE cells SET hits = cells.hits + h.n, reinforced_at = $2
     FROM jsonb_to_recordset($1::jsonb) AS h(tenant_id text, node_id uuid, n integer)
     WHERE cells.tenant_id = h.tenant_id AND cells.node_id = h.node_id
     RETURNING ${cellColumns('cells')}`,
    [batch, now.toISOString()],
  );
  return result.rows;
}

/**
 * Writes the L2 copy of a current L0 cell (same content, embedding and corroboration, linked by
 * origin_node_id) and records it on the origin, once: returns null when the origin was already
 * promoted, is gone, or was superseded (a replaced version is not durable knowledge).
 */
export async function insertPromotedCopy(
  q: Queryable,
  tenantId: string,
  originId: string,
  copyId: string,
  now: Date,
): Promise<CellWithEmbedding | null> {
  const claimed = await q.query(
    `UPDATE cells SET promoted_node_id = $3
     WHERE tenant_id = $1 AND node_id = $2 AND promoted_node_id IS NULL AND layer = 'L0' AND valid_until IS NULL AND ${liveRow()}`,
    [tenantId, originId, copyId],
  );
  if (claimed.rowCount === 0) return null;
  const result = await q.query<CellRow & { embedding: string }>(
    `WITH copy AS (
       INSERT INTO cells (node_id, tenant_id, project, content, cell_type, salience, scene_id, session_id, source_agent,
         source_ref, metadata, layer, origin_node_id, embedding, reinforced_at, created_at, updated_at,
         corroborations, corroborators, trust, expires_at)
       SELECT $3, tenant_id, project, content, cell_type, salience, NULL, NULL, source_agent,
         source_ref, metadata, 'L2', node_id, embedding, $4, $4, $4, corroborations, corroborators, trust, expires_at
       FROM cells WHERE tenant_id = $1 AND node_id = $2
       RETURNING *),
     terms AS (INSERT INTO cell_tenant_terms (node_id, terms) SELECT copy.node_id, t.terms FROM copy JOIN cell_tenant_terms t ON t.node_id = copy.origin_node_id)
     SELECT ${CELL_COLUMNS}, embedding::text AS embedding FROM copy`,
    [tenantId, originId, copyId, now.toISOString()],
  );
  return withEmbedding(result.rows)[0] ?? null;
}

/** The scene's newest `limit` current L0 cells, oldest first (consolidation input: superseded versions are skipped). */
export async function sceneMemberCells(q: Queryable, tenantId: string, sceneId: string, limit: number): Promise<CellRow[]> {
  const result = await q.query<CellRow>(
    `SELECT ${cellColumns('newest')} FROM (
       SELECT * FROM cells WHERE tenant_id = $1 AND scene_id = $2 AND layer = 'L0' AND valid_until IS NULL AND ${liveRow()}
        ORDER BY created_at DESC, node_id DESC LIMIT $3
     ) AS newest ORDER BY newest.created_at, newest.node_id`,
    [tenantId, sceneId, limit],
  );
  return result.rows;
}

/** The ids of the scene's newest `limit` cells of a validity (default: current ones), oldest first. */
export async function sceneCellIds(q: Queryable, tenantId: string, sceneId: string, limit: number, validity?: Validity): Promise<string[]> {
  const where = new CellConditions([tenantId, sceneId, limit], ['tenant_id = $1', 'scene_id = $2']).validity(validity);
  const result = await q.query<{ node_id: string }>(
    `SELECT newest.node_id::text AS node_id FROM (
       SELECT node_id, created_at FROM cells WHERE ${where.sql} ORDER BY created_at DESC, node_id DESC LIMIT $3
     ) AS newest ORDER BY newest.created_at, newest.node_id`,
    where.params,
  );
  return result.rows.map((r) => r.node_id);
}
