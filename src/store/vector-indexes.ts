/**
 * The HNSW indexes on the vector columns (cells_embedding, beacons_embedding: migrations 0001 and
 * 0002; cells_embedding rebuilt with CELLS_HNSW_BUILD by 0013). Loading many rows costs far less
 * without them and one build after (as pg_restore does): `hyphae reembed` swaps its columns that
 * way and a bulk import into an empty database loads so.
 */
import type { Queryable } from './db.js';

export type VectorTable = 'cells' | 'beacons';

export interface HnswBuildParameters {
  readonly m: number;
  readonly efConstruction: number;
}

/**
 * The cells index's build parameters (docs/storage.md, "HNSW build parameters"): `m` is what each
 * store's graph insert pays for. The migrations substitute them ({{CELLS_HNSW_M}},
 * {{CELLS_HNSW_EF_CONSTRUCTION}}), so changing them needs a new migration that rebuilds the index.
 */
export const CELLS_HNSW_BUILD: HnswBuildParameters = { m: 14, efConstruction: 64 };

/** pgvector's WITH clause for `build`. */
export function hnswBuildClause(build: HnswBuildParameters): string {
  return `WITH (m = ${build.m}, ef_construction = ${build.efConstruction})`;
}

const INDEXES: Readonly<Record<VectorTable, string>> = { cells: 'cells_embedding', beacons: 'beacons_embedding' };
// Beacons keep pgvector's defaults (m 16, ef_construction 64): a beacon store is rare, its match on every cell store is a scan.
const BUILDS: Readonly<Record<VectorTable, string>> = {
  cells: ` ${hnswBuildClause(CELLS_HNSW_BUILD)}`,
  beacons: '',
};

export async function dropVectorIndex(tx: Queryable, table: VectorTable): Promise<void> {
  await tx.query(`DROP INDEX IF EXISTS ${INDEXES[table]}`);
}

export async function createVectorIndex(tx: Queryable, table: VectorTable): Promise<void> {
  await tx.query(`CREATE INDEX ${INDEXES[table]} ON ${table} USING hnsw (embedding vector_cosine_ops)${BUILDS[table]}`);
}
