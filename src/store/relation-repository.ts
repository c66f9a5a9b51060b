/** SQL for explicit relations between cells (migration 0016, docs/relations.md). Every statement is scoped by tenant_id. */
import type { ExportRelation } from '../core/export-format.js';
import { MAX_RELATIONS_PER_CELL, type Relation, type RelationInput } from '../core/relation-schemas.js';
import { liveRow } from './cell-conditions.js';
import { cellInsertParams, cellInsertSql, type NewCell } from './cell-repository.js';
import type { CellRow } from './cell-row.js';
import type { Queryable } from './db.js';
import { isoText } from './sql-time.js';
import { vectorParamFromText, type VectorParam } from './vector-param.js';

export interface DeclaredRelations {
  /** The targets the caller may read (the rest were refused: the caller rolls the transaction back). */
  readonly readable: Set<string>;
  /** How many relations the cell declared before this statement. */
  readonly held: number;
  readonly added: Relation[];
}

/**
 * CTEs `wanted` (the jsonb parameter of wantedParams) and `readable`: the targets the caller may
 * read — cells of the tenant in the projects (null: every project), live — locked FOR SHARE so
 * none is deleted before the transaction commits. The targets are probed by their ids as an array
 * (an index scan whatever the table's size): joined to a recordset the planner guesses 100 rows
 * for, they were a sequential scan of cells on every store.
 */
function wantedAndReadable(tenant: string, relations: string, targets: string, projects: string): string {
  return `wanted AS (SELECT * FROM jsonb_to_recordset(${relations}::jsonb) AS r(to_node_id uuid, relation_type text, valid_until timestamptz)),
     readable AS (
       SELECT node_id FROM cells
       WHERE tenant_id = ${tenant} AND node_id = ANY(${targets}::uuid[]) AND (${projects}::text[] IS NULL OR project = ANY(${projects}::text[])) AND ${liveRow()}
       ORDER BY node_id FOR SHARE)`;
}

/** The relations as `wanted` reads them (jsonb text) and their targets' ids. */
function wantedParams(relations: readonly RelationInput[]): [string, string[]] {
  return [JSON.stringify(relations.map((r) => ({ to_node_id: r.to, relation_type: r.type, valid_until: r.valid_until ?? null }))), [...new Set(relations.map((r) => r.to))]];
}

/**
 * Adds relations from an existing cell to those of their targets the caller may read
 * (wantedAndReadable); one that already exists is kept as it is. One statement; the caller refuses
 * (and rolls back) when a target is not readable or the bound is passed.
 */
export async function declareRelationRows(
  q: Queryable,
  request: {
    readonly tenantId: string;
    readonly fromNodeId: string;
    readonly relations: readonly RelationInput[];
    readonly projects: readonly string[] | null;
    readonly createdBy: string;
    readonly now: Date;
  },
): Promise<DeclaredRelations> {
  if (request.relations.length === 0) return { readable: new Set(), held: 0, added: [] };
  const [wanted, targets] = wantedParams(request.relations);
  const result = await q.query<{ readable: string[] | null; held: number; added: Relation[] | null }>(
    `WITH ${wantedAndReadable('$1', '$3', '$7', '$4')},
     added AS (
       INSERT INTO cell_relations (tenant_id, from_node_id, to_node_id, relation_type, created_by, created_at, valid_until)
       SELECT $1, $2::uuid, w.to_node_id, w.relation_type, $5, $6, w.valid_until FROM wanted w JOIN readable t ON t.node_id = w.to_node_id
       ON CONFLICT (from_node_id, to_node_id, relation_type) DO NOTHING
       RETURNING from_node_id::text AS "from", to_node_id::text AS "to", relation_type AS type)
     SELECT (SELECT array_agg(node_id::text) FROM readable) AS readable,
       (SELECT count(*)::int FROM cell_relations WHERE tenant_id = $1 AND from_node_id = $2) AS held,
       (SELECT jsonb_agg(jsonb_build_object('from', a.from, 'to', a.to, 'type', a.type)) FROM added a) AS added`,
    [request.tenantId, request.fromNodeId, wanted, request.projects, request.createdBy, request.now.toISOString(), targets],
  );
  const row = result.rows[0];
  return { readable: new Set(row?.readable ?? []), held: row?.held ?? 0, added: row?.added ?? [] };
}

/**
 * A new cell's insert that declares its relations in the same statement: hyphae_relate_new_cell
 * (migration 0043) locks the targets the caller may read (projects $25) and relates the new cell to
 * them, with plans it keeps for the session; a store pays no round trip, parse or plan for its
 * relations. A fresh cell holds no relation yet: nothing to count.
 */
const INSERT_CELL_RELATING_SQL = cellInsertSql(
  ', hyphae_relate_new_cell($2, node_id, $22::uuid[], $23::text[], $24::timestamptz[], $25::text[], $11, $16) AS readable_targets',
);

/**
 * Inserts a new cell with the relations it declares (ids lowercased, no repeats) in one statement;
 * null when its idempotency key already has a cell (nothing written). The caller refuses — and
 * rolls back — when `readable` lacks a target.
 */
export async function insertCellRelating(
  q: Queryable,
  cell: NewCell,
  relations: readonly RelationInput[],
  projects: readonly string[] | null,
): Promise<{ readonly row: CellRow; readonly readable: ReadonlySet<string> } | null> {
  const result = await q.query<CellRow & { readable_targets: string[] | null }>(INSERT_CELL_RELATING_SQL, [
    ...cellInsertParams(cell),
    relations.map((r) => r.to),
    relations.map((r) => r.type),
    relations.map((r) => r.valid_until ?? null),
    projects,
  ]);
  const first = result.rows[0];
  if (first === undefined) return null;
  const { readable_targets: readable, ...row } = first;
  return { row, readable: new Set(readable ?? []) };
}

/** Serialises the transactions that add relations from one cell until commit, so each counts the others against the bound. */
export async function lockRelationsFrom(q: Queryable, fromNodeId: string): Promise<void> {
  await q.query("SELECT pg_advisory_xact_lock(hashtextextended('cell_relations:' || $1, 0))", [fromNodeId]);
}

/** Deletes one relation; false when the cell declares no such relation. */
export async function deleteRelation(q: Queryable, tenantId: string, fromNodeId: string, relation: RelationInput, projects: readonly string[] | null): Promise<boolean> {
  // A relation to a cell of a project outside `projects` (null: every project) is not deleted, as relationsFrom does not list it.
  const result = await q.query(
    `DELETE FROM cell_relations r WHERE r.tenant_id = $1 AND r.from_node_id = $2 AND r.to_node_id = $3 AND r.relation_type = $4
       AND ($5::text[] IS NULL OR EXISTS (SELECT 1 FROM cells c WHERE c.tenant_id = $1 AND c.node_id = r.to_node_id AND c.project = ANY($5::text[])))`,
    [tenantId, fromNodeId, relation.to, relation.type, projects],
  );
  return result.rowCount > 0;
}

/** The relations the cell declares to cells in `projects` (null: every project), oldest first. */
export async function relationsFrom(q: Queryable, tenantId: string, fromNodeId: string, projects: readonly string[] | null): Promise<Relation[]> {
  const result = await q.query<Relation>(
    `SELECT r.from_node_id::text AS "from", r.to_node_id::text AS "to", r.relation_type AS type, ${isoText('r.valid_until')} AS valid_until
     FROM cell_relations r JOIN cells c ON c.node_id = r.to_node_id AND c.tenant_id = $1 AND ${liveRow('c')}
     WHERE r.tenant_id = $1 AND r.from_node_id = $2 AND ($3::text[] IS NULL OR c.project = ANY($3::text[]))
     ORDER BY r.created_at, r.to_node_id, r.relation_type`,
    [tenantId, fromNodeId, projects],
  );
  return result.rows.map(({ valid_until, ...relation }) => (valid_until === null || valid_until === undefined ? relation : { ...relation, valid_until }));
}

/** The cell's embedding, to match the beacons a change of its relations reaches; null when it is not the tenant's. */
export async function cellEmbeddingOf(q: Queryable, tenantId: string, nodeId: string): Promise<VectorParam | null> {
  const result = await q.query<{ embedding: string }>('SELECT embedding::text AS embedding FROM cells WHERE tenant_id = $1 AND node_id = $2', [tenantId, nodeId]);
  const row = result.rows[0];
  return row === undefined ? null : vectorParamFromText(row.embedding);
}

const IMPORTED_RELATIONS = `jsonb_to_recordset($1::jsonb) AS r(tenant text, from_node_id uuid, to_node_id uuid, relation_type text, created_by text, created_at timestamptz,
  valid_until timestamptz)`;
const BOTH_CELLS_THE_TENANTS = `EXISTS (SELECT 1 FROM cells f WHERE f.node_id = r.from_node_id AND f.tenant_id = r.tenant)
  AND EXISTS (SELECT 1 FROM cells t WHERE t.node_id = r.to_node_id AND t.tenant_id = r.tenant)`;

/** The first imported relation whose two cells are not both cells of the relation's tenant (checked before any is written); null when none. */
export async function strayImportedRelation(q: Queryable, rows: readonly ExportRelation[]): Promise<ExportRelation | null> {
  const result = await q.query<{ i: number }>(
    `SELECT (r.i)::int AS i FROM jsonb_to_recordset($1::jsonb) AS r(i int, tenant text, from_node_id uuid, to_node_id uuid)
     WHERE NOT (${BOTH_CELLS_THE_TENANTS}) ORDER BY r.i LIMIT 1`,
    [JSON.stringify(rows.map((row, i) => ({ ...row, i })))],
  );
  const first = result.rows[0];
  return first === undefined ? null : (rows[first.i] ?? null);
}

/** Inserts imported relations (one already there is kept); answers how many were added and a cell now past the per-cell bound, if any. */
export async function insertImportedRelations(q: Queryable, rows: readonly ExportRelation[]): Promise<{ added: number; overfull: string | null }> {
  const result = await q.query<{ added: number; overfull: string | null }>(
    `WITH added AS (
       INSERT INTO cell_relations (tenant_id, from_node_id, to_node_id, relation_type, created_by, created_at, valid_until)
       SELECT r.tenant, r.from_node_id, r.to_node_id, r.relation_type, r.created_by, r.created_at, r.valid_until FROM ${IMPORTED_RELATIONS}
       WHERE ${BOTH_CELLS_THE_TENANTS} AND (r.valid_until IS NULL OR r.valid_until > r.created_at)
       ON CONFLICT DO NOTHING RETURNING from_node_id)
     SELECT (SELECT count(*)::int FROM added) AS added,
       (SELECT x.from_node_id::text FROM (
          SELECT a.from_node_id, (SELECT count(*) FROM cell_relations k WHERE k.from_node_id = a.from_node_id) + count(*) AS n FROM added a GROUP BY a.from_node_id) x
        WHERE x.n > $2 ORDER BY x.from_node_id LIMIT 1) AS overfull`,
    [JSON.stringify(rows), MAX_RELATIONS_PER_CELL],
  );
  return result.rows[0] ?? { added: 0, overfull: null };
}
