/**
 * kNN over cells with pgvector's HNSW index. The iterative scan (pgvector ≥ 0.8) keeps walking
 * the graph until k rows pass the tenant/project/layer filters, so filters never starve a
 * result; relaxed order is re-sorted here. Every session of the database carries the scan
 * settings (db.knn, set by the driver: knn-session.ts), so a search is a single statement unless
 * k asks for a larger ef_search, which is set transaction-locally so nothing leaks to other users
 * of a pooled connection.
 */
import type { CellType, Layer } from '../core/cell-types.js';
import { CellConditions, type Validity } from './cell-conditions.js';
import { CELL_COLUMNS, type CellRow } from './cell-row.js';
import type { Db, Queryable } from './db.js';
import { MAX_EF_SEARCH } from './knn-session.js';
import type { VectorParam } from './vector-param.js';

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

/** The k nearest cells, nearest first, with an ef_search of at least 2k. */
export async function searchCells(db: Db, vector: VectorParam, filter: KnnFilter, k: number, withCells = false): Promise<KnnHit[]> {
  const sessionEfSearch = db.knn.efSearch;
  const efSearch = Math.min(MAX_EF_SEARCH, Math.max(sessionEfSearch, k * 2));
  const hits =
    efSearch === sessionEfSearch
      ? await nearestCells(db, vector, filter, k, withCells)
      : await db.transaction(async (tx) => {
          await tx.query(`SELECT set_config('hnsw.ef_search', $1, true)`, [String(efSearch)]);
          return nearestCells(tx, vector, filter, k, withCells);
        });
  return hits.sort((a, b) => a.distance - b.distance);
}

/**
 * k nearest cells by cosine distance on the HNSW index, in one statement (the current project is
 * an init-plan subquery over the open sessions), in the index's relaxed order. With withCells the
 * same statement returns each hit's cell, so a caller that shows the cells needs no second round trip.
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
