/** SQL for cells (memory nodes). Every statement is scoped by tenant_id. */
import type { CellType, Layer } from '../core/cell-types.js';
import type { SourceRef } from '../core/entities.js';
import type { Queryable } from './db.js';
import { vectorParamFromText, type VectorParam } from './vector-param.js';
import { isoText } from './sql-time.js';

export interface CellRow {
  readonly node_id: string;
  readonly tenant_id: string;
  readonly project: string;
  readonly content: string;
  readonly cell_type: CellType;
  readonly salience: number;
  readonly scene_id: string | null;
  readonly session_id: string | null;
  readonly source_agent: string;
  readonly source_ref: SourceRef | null;
  readonly metadata: Record<string, unknown>;
  readonly layer: Layer;
  readonly origin_node_id: string | null;
  readonly promoted_node_id: string | null;
  readonly hits: number;
  readonly reinforced_at: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly valid_from: string;
  readonly valid_until: string | null;
  readonly supersedes: string | null;
  readonly superseded_by: string | null;
  /** Stores that restated this cell and reinforced it instead of writing their own. */
  readonly corroborations: number;
  /** Agents other than the author who restated it, in order of first restatement. */
  readonly corroborators: readonly string[];
  readonly trust: number;
}

/** The cell columns in wire-friendly form; `t` qualifies them when a statement joins another relation. */
export function cellColumns(t = ''): string {
  const c = (name: string): string => (t === '' ? name : `${t}.${name}`);
  return `${c('node_id')}::text AS node_id, ${c('tenant_id')} AS tenant_id, ${c('project')} AS project, ${c('content')} AS content,
  ${c('cell_type')} AS cell_type, ${c('salience')} AS salience, ${c('scene_id')}::text AS scene_id,
  ${c('session_id')}::text AS session_id, ${c('source_agent')} AS source_agent, ${c('source_ref')} AS source_ref,
  ${c('metadata')} AS metadata, ${c('layer')} AS layer, ${c('origin_node_id')}::text AS origin_node_id,
  ${c('promoted_node_id')}::text AS promoted_node_id, ${c('hits')} AS hits, ${isoText(c('reinforced_at'))} AS reinforced_at,
  ${isoText(c('created_at'))} AS created_at, ${isoText(c('updated_at'))} AS updated_at,
  ${isoText(c('valid_from'))} AS valid_from, ${isoText(c('valid_until'))} AS valid_until,
  ${c('supersedes')}::text AS supersedes, ${c('superseded_by')}::text AS superseded_by,
  ${c('corroborations')} AS corroborations, ${c('corroborators')} AS corroborators, ${c('trust')} AS trust`;
}

const CELL_COLUMNS = cellColumns();

export interface NewCell {
  readonly nodeId: string;
  readonly tenantId: string;
  readonly project: string;
  readonly content: string;
  readonly cellType: CellType;
  readonly salience: number;
  readonly sceneId: string | null;
  readonly sessionId: string | null;
  readonly sourceAgent: string;
  readonly sourceRef: SourceRef | null;
  readonly metadata: Record<string, unknown>;
  readonly idempotencyKey: string | null;
  readonly layer: Layer;
  readonly originNodeId: string | null;
  /** The current cell this one replaces (markSuperseded closes it in the same transaction). */
  readonly supersedes?: string | null;
  /** The author's trust (its key's); restatements by other agents raise it. */
  readonly trust: number;
  readonly embedding: VectorParam;
  readonly now: Date;
}

/** Inserts a cell; returns null when the (tenant, agent, idempotency key) already exists. */
export async function insertCell(q: Queryable, cell: NewCell): Promise<CellRow | null> {
  const result = await q.query<CellRow>(
    `INSERT INTO cells (node_id, tenant_id, project, content, cell_type, salience, scene_id, session_id, source_agent,
       source_ref, metadata, idempotency_key, layer, origin_node_id, embedding, reinforced_at, created_at, updated_at,
       valid_from, supersedes, trust)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11::jsonb, $12, $13, $14, $15::vector, $16, $16, $16, $16, $17, $18)
     ON CONFLICT (tenant_id, source_agent, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
     RETURNING ${CELL_COLUMNS}`,
    [
      cell.nodeId,
      cell.tenantId,
      cell.project,
      cell.content,
      cell.cellType,
      cell.salience,
      cell.sceneId,
      cell.sessionId,
      cell.sourceAgent,
      cell.sourceRef === null ? null : JSON.stringify(cell.sourceRef),
      JSON.stringify(cell.metadata),
      cell.idempotencyKey,
      cell.layer,
      cell.originNodeId,
      cell.embedding,
      cell.now.toISOString(),
      cell.supersedes ?? null,
      cell.trust,
    ],
  );
  return result.rows[0] ?? null;
}

/** The cell, row-locked for the rest of the transaction (supersession reads and closes it). */
export async function lockCell(q: Queryable, tenantId: string, nodeId: string): Promise<CellRow | null> {
  const result = await q.query<CellRow>(`SELECT ${CELL_COLUMNS} FROM cells WHERE tenant_id = $1 AND node_id = $2 FOR UPDATE`, [tenantId, nodeId]);
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
     SELECT ${CELL_COLUMNS} FROM cells JOIN chain USING (node_id) WHERE cells.tenant_id = $1 ORDER BY chain.depth`,
    [tenantId, nodeId],
  );
  return result.rows;
}

/** The cell a store with this key wrote — or reinforced (reinforcement_keys): its replay returns that cell. */
export async function findCellByIdempotencyKey(q: Queryable, tenantId: string, agent: string, key: string): Promise<CellRow | null> {
  const result = await q.query<CellRow>(
    `SELECT ${CELL_COLUMNS} FROM cells WHERE tenant_id = $1 AND (
       (source_agent = $2 AND idempotency_key = $3)
       OR node_id = (SELECT r.node_id FROM reinforcement_keys r WHERE r.tenant_id = $1 AND r.agent = $2 AND r.idempotency_key = $3))
     LIMIT 1`,
    [tenantId, agent, key],
  );
  return result.rows[0] ?? null;
}

export async function findCell(q: Queryable, tenantId: string, nodeId: string): Promise<CellRow | null> {
  const result = await q.query<CellRow>(`SELECT ${CELL_COLUMNS} FROM cells WHERE tenant_id = $1 AND node_id = $2`, [tenantId, nodeId]);
  return result.rows[0] ?? null;
}

export async function findCells(q: Queryable, tenantId: string, nodeIds: readonly string[]): Promise<CellRow[]> {
  if (nodeIds.length === 0) return [];
  const result = await q.query<CellRow>(`SELECT ${CELL_COLUMNS} FROM cells WHERE tenant_id = $1 AND node_id = ANY($2::uuid[])`, [
    tenantId,
    nodeIds,
  ]);
  return result.rows;
}

/** A cell with its embedding, ready to bind again (the gossip of a deleted or promoted cell). */
export type CellWithEmbedding = CellRow & { readonly embedding: VectorParam };

/** Rows that returned `embedding::text`: the text turned into the parameter form once, here. */
function withEmbedding(rows: readonly (CellRow & { embedding: string })[]): CellWithEmbedding[] {
  return rows.map((row) => ({ ...row, embedding: vectorParamFromText(row.embedding) }));
}

/**
 * Which versions a read sees: the current ones (default), every version, or those valid at an
 * instant (created by then, not yet superseded then).
 */
export type Validity = { readonly kind: 'current' } | { readonly kind: 'all' } | { readonly kind: 'at'; readonly asOf: string };

/**
 * The WHERE of a cells statement: conditions joined by AND, each value bound as the next $n after
 * the parameters the statement already has. One builder for listCells, deleteCellsWhere and nearestCells.
 */
class CellConditions {
  readonly params: unknown[];
  private readonly conditions: string[];

  constructor(params: readonly unknown[], conditions: readonly string[]) {
    this.params = [...params];
    this.conditions = [...conditions];
  }

  /** `clause($n)` with value bound as $n; no condition when the value is undefined (that filter is off). */
  add(clause: (n: number) => string, value: unknown): this {
    if (value !== undefined) this.conditions.push(clause(this.bind(value)));
    return this;
  }

  /** A condition written against $n placeholders already bound. */
  addRaw(condition: string): this {
    this.conditions.push(condition);
    return this;
  }

  /** The versions a read sees: current ones (default), all, or those valid at an instant (created by then, not yet superseded then). */
  validity(validity: Validity | undefined): this {
    if (validity === undefined || validity.kind === 'current') return this.addRaw('valid_until IS NULL');
    if (validity.kind === 'all') return this;
    return this.add((n) => `valid_from <= $${n}::timestamptz AND (valid_until IS NULL OR valid_until > $${n}::timestamptz)`, validity.asOf);
  }

  /** Binds one more value (a LIMIT, a keyset position) and returns its $n. */
  bind(value: unknown): number {
    this.params.push(value);
    return this.params.length;
  }

  get sql(): string {
    return this.conditions.join(' AND ');
  }
}

export interface CellListFilter {
  readonly validity?: Validity;
  /** Projects the caller may read; null = every project of the tenant. */
  readonly projects: readonly string[] | null;
  readonly project?: string;
  readonly sceneId?: string;
  readonly cellType?: CellType;
  readonly layer?: Layer;
}

export interface KeysetPosition {
  readonly createdAt: string;
  readonly id: string;
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
    .validity(filter.validity);
  if (after !== null) where.addRaw(`(created_at, node_id) < ($${where.bind(after.createdAt)}::timestamptz, $${where.bind(after.id)}::uuid)`);
  const limitAt = where.bind(limit + 1);
  const result = await q.query<CellRow>(
    `SELECT ${CELL_COLUMNS} FROM cells WHERE ${where.sql} ORDER BY created_at DESC, node_id DESC LIMIT $${limitAt}`,
    where.params,
  );
  return result.rows;
}

export interface BulkForgetFilter {
  /** Projects the caller may read; null = every project of the tenant. */
  readonly projects: readonly string[] | null;
  readonly sceneId?: string;
  readonly sourceRefLocator?: string;
  readonly sourceRefKind?: string;
}

/**
 * Deletes up to `limit` cells matching the filter, oldest first (so repeated calls make progress),
 * and returns them with their embeddings for the `deleted` diffs.
 */
export async function deleteCellsWhere(
  q: Queryable,
  tenantId: string,
  filter: BulkForgetFilter,
  limit: number,
): Promise<CellWithEmbedding[]> {
  const where = new CellConditions([tenantId], ['tenant_id = $1'])
    .add((n) => `project = ANY($${n}::text[])`, filter.projects ?? undefined)
    .add((n) => `scene_id = $${n}`, filter.sceneId)
    .add((n) => `source_ref->>'locator' = $${n}`, filter.sourceRefLocator)
    .add((n) => `source_ref->>'kind' = $${n}`, filter.sourceRefKind);
  const limitAt = where.bind(limit);
  const result = await q.query<CellRow & { embedding: string }>(
    `DELETE FROM cells WHERE tenant_id = $1 AND node_id IN (
       SELECT node_id FROM cells WHERE ${where.sql} ORDER BY created_at, node_id LIMIT $${limitAt} FOR UPDATE)
     RETURNING ${CELL_COLUMNS}, embedding::text AS embedding`,
    where.params,
  );
  return withEmbedding(result.rows);
}

/** Deletes a cell; returns it with its embedding, or null when it is not the tenant's. */
export async function deleteCell(q: Queryable, tenantId: string, nodeId: string): Promise<CellWithEmbedding | null> {
  const result = await q.query<CellRow & { embedding: string }>(
    `DELETE FROM cells WHERE tenant_id = $1 AND node_id = $2 RETURNING ${CELL_COLUMNS}, embedding::text AS embedding`,
    [tenantId, nodeId],
  );
  return withEmbedding(result.rows)[0] ?? null;
}

/** Where a kNN searches: a named project, or the caller's current project resolved in the same statement. */
export type KnnProject =
  | { readonly kind: 'named'; readonly project: string }
  | {
      readonly kind: 'current';
      readonly agent: string;
      readonly defaultProject: string;
      /** The caller's project scope; null = all projects. */
      readonly projects: readonly string[] | null;
    };

export interface KnnFilter {
  readonly tenantId: string;
  readonly project: KnnProject;
  readonly layer: Layer;
  readonly cellTypes?: readonly CellType[];
  readonly sceneId?: string;
  readonly validity?: Validity;
}

export interface KnnHit {
  readonly node_id: string;
  readonly distance: number;
  /** The whole cell, when the search was asked for it (withCells). */
  readonly cell?: CellRow;
}

/**
 * k nearest cells by cosine distance on the HNSW index, in one statement (the current project is
 * an init-plan subquery over the open sessions). The caller enables hnsw.iterative_scan, so the
 * tenant/project/layer filters cannot starve the result. With withCells the same statement
 * returns each hit's cell, so a caller that shows the cells needs no second round trip.
 */
export async function nearestCells(q: Queryable, vector: VectorParam, filter: KnnFilter, k: number, withCells = false): Promise<KnnHit[]> {
  const where = new CellConditions([vector, filter.tenantId, filter.layer], ['tenant_id = $2', 'layer = $3']);
  if (filter.project.kind === 'named') {
    where.add((n) => `project = $${n}`, filter.project.project);
  } else {
    const { agent, defaultProject, projects } = filter.project;
    const [a, p, d] = [where.bind(agent), where.bind(projects), where.bind(defaultProject)];
    where.addRaw(`project = COALESCE((SELECT s.project FROM sessions s WHERE s.tenant_id = $2 AND s.agent = $${a} AND s.closed_at IS NULL
      AND ($${p}::text[] IS NULL OR s.project = ANY($${p}::text[])) ORDER BY s.opened_at DESC, s.session_id DESC LIMIT 1), $${d})`);
  }
  where
    .add((n) => `cell_type = ANY($${n}::text[])`, filter.cellTypes)
    .add((n) => `scene_id = $${n}`, filter.sceneId)
    .validity(filter.validity);
  const order = `WHERE ${where.sql} ORDER BY embedding <=> $1::vector LIMIT $${where.bind(k)}`;
  if (!withCells) {
    const result = await q.query<KnnHit>(`SELECT node_id::text AS node_id, (embedding <=> $1::vector)::float8 AS distance FROM cells ${order}`, where.params);
    return result.rows;
  }
  const result = await q.query<CellRow & { readonly distance: number }>(
    `SELECT (embedding <=> $1::vector)::float8 AS distance, ${CELL_COLUMNS} FROM cells ${order}`,
    where.params,
  );
  return result.rows.map(({ distance, ...cell }) => ({ node_id: cell.node_id, distance, cell }));
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
    `UPDATE cells SET promoted_node_id = $3 WHERE tenant_id = $1 AND node_id = $2 AND promoted_node_id IS NULL AND layer = 'L0' AND valid_until IS NULL`,
    [tenantId, originId, copyId],
  );
  if (claimed.rowCount === 0) return null;
  const result = await q.query<CellRow & { embedding: string }>(
    `INSERT INTO cells (node_id, tenant_id, project, content, cell_type, salience, scene_id, session_id, source_agent,
       source_ref, metadata, layer, origin_node_id, embedding, reinforced_at, created_at, updated_at,
       corroborations, corroborators, trust)
     SELECT $3, tenant_id, project, content, cell_type, salience, NULL, NULL, source_agent,
       source_ref, metadata, 'L2', node_id, embedding, $4, $4, $4, corroborations, corroborators, trust
     FROM cells WHERE tenant_id = $1 AND node_id = $2
     RETURNING ${CELL_COLUMNS}, embedding::text AS embedding`,
    [tenantId, originId, copyId, now.toISOString()],
  );
  return withEmbedding(result.rows)[0] ?? null;
}

/** The scene's newest `limit` current L0 cells, oldest first (consolidation input: superseded versions are skipped). */
export async function sceneMemberCells(q: Queryable, tenantId: string, sceneId: string, limit: number): Promise<CellRow[]> {
  const result = await q.query<CellRow>(
    `SELECT ${cellColumns('newest')} FROM (
       SELECT * FROM cells WHERE tenant_id = $1 AND scene_id = $2 AND layer = 'L0' AND valid_until IS NULL
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
