/**
 * The HNSW indexes on the vector columns (cells_embedding, beacons_embedding: migrations 0001 and
 * 0002; cells_embedding rebuilt for its embedding model by 0013). Loading many rows costs far less
 * without them and one build after (as pg_restore does): `hyphae reembed` swaps its columns that
 * way and a bulk import into an empty database loads so.
 */
import type { Queryable } from './db.js';

export type VectorTable = 'cells' | 'beacons' | 'cell_evidence';

export interface HnswBuildParameters {
  readonly m: number;
  readonly efConstruction: number;
}

/** pgvector's own: what an index built without a WITH clause has. */
const PGVECTOR_DEFAULT_BUILD: HnswBuildParameters = { m: 16, efConstruction: 64 };

/**
 * Cells index build parameters for the models whose recall@10 was measured with them at 10k and
 * 100k cells (docs/storage.md, "HNSW build parameters"): `m` is what each store's graph insert pays
 * for. minilm's vectors keep recall at m 12 (0.997 at 100k, 0.983 with the defaults); feature
 * hashing's fall below 0.95, and models not measured keep pgvector's defaults. Measured on minilm's
 * int8 vectors; its fp32 vectors lie within cosine 0.976 of them, text by text (docs/embeddings.md).
 */
const MINILM_BUILD: HnswBuildParameters = { m: 12, efConstruction: 48 };
const MEASURED_CELLS_BUILDS: ReadonlyMap<string, HnswBuildParameters> = new Map([
  ['all-minilm-l6-v2', MINILM_BUILD],
  ['all-minilm-l6-v2-int8', MINILM_BUILD],
]);

/** The cells index's build parameters for vectors of `modelId`. */
export function cellsHnswBuild(modelId: string): HnswBuildParameters {
  return MEASURED_CELLS_BUILDS.get(modelId) ?? PGVECTOR_DEFAULT_BUILD;
}

/** The index's reloptions as pg_class lists them (none for pgvector's defaults, which are built without a WITH clause). */
export function hnswReloptions(build: HnswBuildParameters): string[] {
  return isDefaultBuild(build) ? [] : [`m=${build.m}`, `ef_construction=${build.efConstruction}`];
}

/** pgvector's WITH clause for `build`, with its leading space; empty for the defaults. */
export function hnswBuildClause(build: HnswBuildParameters): string {
  return isDefaultBuild(build) ? '' : ` WITH (m = ${build.m}, ef_construction = ${build.efConstruction})`;
}

function isDefaultBuild(build: HnswBuildParameters): boolean {
  return build.m === PGVECTOR_DEFAULT_BUILD.m && build.efConstruction === PGVECTOR_DEFAULT_BUILD.efConstruction;
}

const INDEXES: Readonly<Record<VectorTable, string>> = { cells: 'cells_embedding', beacons: 'beacons_embedding', cell_evidence: 'cell_evidence_embedding' };

export async function dropVectorIndex(tx: Queryable, table: VectorTable): Promise<void> {
  await tx.query(`DROP INDEX IF EXISTS ${INDEXES[table]}`);
}

/** Builds the table's index for vectors of `modelId` (beacons and learnt evidence keep pgvector's defaults: both are written rarely). */
export async function createVectorIndex(tx: Queryable, table: VectorTable, modelId: string): Promise<void> {
  const build = table === 'cells' ? hnswBuildClause(cellsHnswBuild(modelId)) : '';
  await tx.query(`CREATE INDEX ${INDEXES[table]} ON ${table} USING hnsw (embedding vector_cosine_ops)${build}`);
}
