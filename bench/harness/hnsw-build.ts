/**
 * BENCH_HNSW=m/ef_construction (e.g. 16/64): the benches build the cells HNSW index with these
 * build parameters instead of the migrations' ones, so candidates compare on the same data; unset,
 * the index is built as the product builds it (src/store/vector-indexes.ts).
 */
import type { Queryable } from '../../src/store/db.js';
import { createVectorIndex, dropVectorIndex, hnswBuildClause, type HnswBuildParameters, type VectorTable } from '../../src/store/vector-indexes.js';

/** `m/ef_construction` (e.g. 12/48) as build parameters. */
export function parseHnswBuild(text: string): HnswBuildParameters {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (match === null) throw new Error(`HNSW build parameters must be m/ef_construction (e.g. 12/48), got ${text}`);
  return { m: Number(match[1]), efConstruction: Number(match[2]) };
}

function benchOverride(): HnswBuildParameters | undefined {
  const text = process.env.BENCH_HNSW;
  return text === undefined || text === '' ? undefined : parseHnswBuild(text);
}

/** `definition` (pg_get_indexdef of the cells index) with BENCH_HNSW's parameters, when set, in place of its own. */
export function withBenchHnsw(definition: string, build: HnswBuildParameters | undefined = benchOverride()): string {
  return build === undefined ? definition : `${definition.replace(/\s+WITH \(.*\)$/, '')}${hnswBuildClause(build)}`;
}

/** The HNSW index of `table`, with BENCH_HNSW's (or `build`'s) parameters on cells when given. */
export async function createBenchVectorIndex(db: Queryable, table: VectorTable, modelId: string, build: HnswBuildParameters | undefined = benchOverride()): Promise<void> {
  if (table === 'cells' && build !== undefined) {
    await db.query(`CREATE INDEX cells_embedding ON cells USING hnsw (embedding vector_cosine_ops)${hnswBuildClause(build)}`);
    return;
  }
  await createVectorIndex(db, table, modelId);
}

/** What the note of an index row says about its parameters. */
export function hnswLabel(build: HnswBuildParameters | undefined = benchOverride()): string {
  return build === undefined ? 'build parameters as the migrations define them' : `m ${build.m}, ef_construction ${build.efConstruction} (BENCH_HNSW)`;
}

/** Replaces the migrations' cells index by BENCH_HNSW's when set (before the stores that fill it). */
export async function applyBenchHnsw(db: Queryable): Promise<void> {
  const build = benchOverride();
  if (build === undefined) return;
  await dropVectorIndex(db, 'cells');
  await createBenchVectorIndex(db, 'cells', '', build);
}
