/**
 * The cells part of `npm run bench scale`: one tenant grown to a million cells on native
 * PostgreSQL (vectors built in the database: bench/scale-vectors.ts), the HNSW index built as the
 * migrations define it; at the baseline size and at the full size, the facade's recall against the
 * bare SQL of the same kNN, recall@10 against exact search, a store through the facade, and what
 * the database holds per million cells.
 */
import pg from 'pg';
import type { Principal } from '../src/core/principal.js';
import type { Embedder } from '../src/embed/embedder.js';
import { createMemoryFacade, type ManagedMemoryFacade } from '../src/service/index.js';
import type { Db } from '../src/store/db.js';
import { migrate } from '../src/store/migrator.js';
import { openPgDb } from '../src/store/pg-driver.js';
import { toVectorParam } from '../src/store/vector-param.js';
import { analyzeMemoryTables } from '../src/store/statistics-repository.js';
import type { RealPostgres } from '../test/support/real-postgres.js';
import { elapsedMs, round } from './harness/measure.js';
import { percentile, type BenchRow } from './harness/section.js';
import { processTreeCpuMs } from './harness/process-cpu.js';
import { hnswLabel, withBenchHnsw } from './harness/hnsw-build.js';
import { createDatabase, dropDatabase, postmasterPid } from './harness/postgres.js';
import { CELL_VECTOR_SQL, cellBaseJoin, SCALE_DIMENSION, SCALE_MODEL_ID, ScaleVectors } from './scale-vectors.js';

const TENANT = 'scale';
const PROJECT = 'default';
const LOAD_CHUNK = 50_000;
const QUERIES = 300;
const EXACT_QUERIES = 60;
// recall@10 at the session's ef_search (the default, 40) and at a larger one an operator may set for big tenants.
const EF_SEARCHES = [40, 100];
const STORES = 200;
// Stores made with the tenant within a tenth of its cell limit, where stores count the tenant's cells (src/service/facade/tenant-quotas.ts).
const NEAR_LIMIT_STORES = 40;
const K = 10;
// Store texts name vectors no loaded cell and no query has.
const STORE_VECTOR_OFFSET = 100_000;

const BARE_KNN = `SELECT node_id::text AS node_id, (embedding <=> $1::vector)::float8 AS distance FROM cells
  WHERE tenant_id = $2 AND layer = 'L0' AND project = $3 AND valid_until IS NULL ORDER BY embedding <=> $1::vector LIMIT $4`;
const EXACT = `SELECT node_id::text AS node_id, (embedding <=> $1::vector)::float8 AS distance FROM cells
  WHERE tenant_id = $2 AND layer = 'L0' AND project = $3 ORDER BY (embedding <=> $1::vector) + 0 LIMIT $4`;

/** Texts `scale-vector:<j>` embed as ScaleVectors.query(j): the facade's own path, with no model in the way. */
function vectorEmbedder(vectors: ScaleVectors): Embedder {
  return {
    modelId: SCALE_MODEL_ID,
    dimension: SCALE_DIMENSION,
    embed: (texts) => Promise.resolve(texts.map((text) => vectors.query(Number(text.slice(text.indexOf(':') + 1))))),
    close: () => Promise.resolve(),
  };
}

const r3 = (x: number): number => round(x);

interface StageFigures {
  readonly cells: number;
  readonly recall: number[];
  readonly bare: number[];
  readonly store: number[];
  readonly nearLimitStore: number[];
  /** Per ef_search: recall@10 against exact search, and PostgreSQL's CPU per kNN. */
  readonly recallAt10?: readonly { readonly efSearch: number; readonly recall: number; readonly pgCpuMs: number }[];
  readonly indexSeconds: number;
  /** CPU milliseconds per call: the facade's (this process: service, store, pg client) and PostgreSQL's (every process of the server). */
  readonly cpu: { readonly facadeRecall: number; readonly pgKnn: number; readonly facadeStore: number; readonly pgStore: number };
}

/** Cells [from, to) of the scheme, inserted by SQL in chunks. */
async function loadCells(db: Db, from: number, to: number): Promise<void> {
  for (let start = from; start < to; start += LOAD_CHUNK) {
    const end = Math.min(to, start + LOAD_CHUNK) - 1;
    await db.query(
      `INSERT INTO cells (node_id, tenant_id, project, content, cell_type, salience, source_agent, embedding)
       SELECT gen_random_uuid(), '${TENANT}', '${PROJECT}', 'memory ' || g, 'Fact', 0.5, 'loader', ${CELL_VECTOR_SQL}
       FROM generate_series(${start}, ${end}) AS g ${cellBaseJoin('g')}`,
    );
  }
}

async function measureStage(db: Db, url: string, indexDefinition: string, cells: number, vectors: ScaleVectors, storeOffset: number): Promise<StageFigures> {
  await db.query(`SET maintenance_work_mem = '3GB'`);
  const started = performance.now();
  await db.query(indexDefinition);
  const indexSeconds = (performance.now() - started) / 1000;
  await analyzeMemoryTables(db);
  const facadeDb = await openPgDb({ url });
  const bare = new pg.Client({ connectionString: url });
  let facade: ManagedMemoryFacade | undefined;
  let nearLimit: ManagedMemoryFacade | undefined;
  try {
    await bare.connect();
    await bare.query(`SET hnsw.iterative_scan = relaxed_order; SET hnsw.ef_search = 40`);
    // The tenant's limit twice its cells, as an operator sizes it (the default, a million, would refuse the stores at that size).
    facade = createMemoryFacade({ db: facadeDb, embedder: vectorEmbedder(vectors), config: { hitFlushIntervalMs: 3_600_000, maxCellsPerTenant: 2 * cells } });
    const key = await facade.keyAdmin.createKey({ tenant: TENANT, agent: `bench-${cells}`, default_project: PROJECT, projects: [PROJECT] });
    const principal: Principal = await facade.authenticate(key.key);
    const postmaster = await postmasterPid(db);
    const samples = { recall: [] as number[], bare: [] as number[], store: [] as number[], nearLimitStore: [] as number[] };
    const facadeRecallCpu = { ms: 0 };
    const facadeStoreCpu = { ms: 0 };
    for (let j = 0; j < 30; j++) await facade.recall(principal, { query: `scale-vector:${j}`, k: K });
    const pgBeforeRecall = processTreeCpuMs(postmaster);
    for (let j = 0; j < QUERIES; j++) {
      const vector = toVectorParam(vectors.query(j));
      const first = j % 2 === 0;
      const viaFacade = (): Promise<number> => elapsedMs(() => (facade as ManagedMemoryFacade).recall(principal, { query: `scale-vector:${j}`, k: K }), facadeRecallCpu);
      const viaBare = (): Promise<number> => elapsedMs(() => bare.query(BARE_KNN, [vector, TENANT, PROJECT, K]));
      if (first) {
        samples.recall.push(await viaFacade());
        samples.bare.push(await viaBare());
      } else {
        samples.bare.push(await viaBare());
        samples.recall.push(await viaFacade());
      }
    }
    // Both the facade's and the bare queries ran the same kNN on the server.
    const pgKnn = (processTreeCpuMs(postmaster) - pgBeforeRecall) / (2 * QUERIES);
    const pgBeforeStore = processTreeCpuMs(postmaster);
    for (let j = 0; j < STORES; j++) {
      samples.store.push(await elapsedMs(() => (facade as ManagedMemoryFacade).store(principal, { content: `scale-vector:${storeOffset + j}`, cell_type: 'Fact', salience: 0.5 }), facadeStoreCpu));
    }
    const pgStore = (processTreeCpuMs(postmaster) - pgBeforeStore) / STORES;
    const { rows: held } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM cells WHERE tenant_id = $1`, [TENANT]);
    const limit = (held[0] as { n: number }).n + 2 * NEAR_LIMIT_STORES;
    nearLimit = createMemoryFacade({ db: facadeDb, embedder: vectorEmbedder(vectors), config: { hitFlushIntervalMs: 3_600_000, maxCellsPerTenant: limit } });
    for (let j = STORES; j < STORES + NEAR_LIMIT_STORES; j++) {
      samples.nearLimitStore.push(await elapsedMs(() => (nearLimit as ManagedMemoryFacade).store(principal, { content: `scale-vector:${storeOffset + j}`, cell_type: 'Fact', salience: 0.5 })));
    }
    const figures: StageFigures = { cells, ...samples, indexSeconds, cpu: { facadeRecall: facadeRecallCpu.ms / QUERIES, pgKnn, facadeStore: facadeStoreCpu.ms / STORES, pgStore } };
    const truths: { vector: ReturnType<typeof toVectorParam>; kth: number }[] = [];
    for (let j = 0; j < EXACT_QUERIES; j++) {
      const vector = toVectorParam(vectors.query(j));
      const truth = (await bare.query<{ distance: number }>(EXACT, [vector, TENANT, PROJECT, K])).rows;
      truths.push({ vector, kth: truth[K - 1]?.distance ?? Number.POSITIVE_INFINITY });
    }
    const recallAt10 = [];
    for (const efSearch of EF_SEARCHES) {
      await bare.query(`SET hnsw.ef_search = ${efSearch}`);
      let found = 0;
      const pgBefore = processTreeCpuMs(postmaster);
      for (const { vector, kth } of truths) {
        const approx = (await bare.query<{ distance: number }>(BARE_KNN, [vector, TENANT, PROJECT, K])).rows;
        found += approx.filter((row) => row.distance <= kth + 1e-6).length;
      }
      recallAt10.push({ efSearch, recall: found / (EXACT_QUERIES * K), pgCpuMs: (processTreeCpuMs(postmaster) - pgBefore) / EXACT_QUERIES });
    }
    return { ...figures, recallAt10 };
  } finally {
    await facade?.close();
    await nearLimit?.close();
    await facadeDb.close();
    await bare.end().catch(() => undefined);
  }
}

function stageRows(stage: StageFigures, base: StageFigures | undefined): BenchRow[] {
  const label = `${stage.cells.toLocaleString('en-US')} cells`;
  const p = (xs: number[], q: number): number => r3(percentile(xs, q));
  const rows: BenchRow[] = [
    { metric: `${label}: HNSW index build`, value: r3(stage.indexSeconds), unit: 's', note: `${SCALE_DIMENSION}-d, ${hnswLabel()}, maintenance_work_mem 3GB` },
    {
      metric: `${label}: recall p50 (facade) vs the bare kNN SQL`,
      value: p(stage.recall, 50),
      unit: 'ms',
      baseline: p(stage.bare, 50),
      ratio: r3(percentile(stage.recall, 50) / percentile(stage.bare, 50)),
      note: `${QUERIES} queries interleaved, k ${K}; the facade embeds nothing (vectors precomputed); baseline: a plain pg client with the same scan settings`,
    },
    { metric: `${label}: recall p99 (facade) vs the bare kNN SQL`, value: p(stage.recall, 99), unit: 'ms', baseline: p(stage.bare, 99), ratio: r3(percentile(stage.recall, 99) / percentile(stage.bare, 99)) },
    {
      metric: `${label}: store p50 through the facade`,
      value: p(stage.store, 50),
      unit: 'ms',
      ...(base === undefined ? {} : { baseline: p(base.store, 50), ratio: r3(percentile(stage.store, 50) / percentile(base.store, 50)) }),
      note: `${STORES} stores one at a time (near-duplicate probe, HNSW insert, no beacons), the tenant's cell limit twice its cells; p99 ${p(stage.store, 99)} ms${base === undefined ? '' : ` (baseline ${p(base.store, 99)} ms at ${base.cells.toLocaleString('en-US')} cells)`}`,
    },
    {
      metric: `${label}: CPU per recall, the facade / PostgreSQL`,
      value: r3(stage.cpu.facadeRecall),
      unit: 'ms',
      baseline: r3(stage.cpu.pgKnn),
      note: `baseline: PostgreSQL's CPU per kNN (every server process over the ${2 * QUERIES} queries above ÷ ${2 * QUERIES}); the facade's is this process's CPU over its calls (no model: vectors precomputed)`,
    },
    {
      metric: `${label}: CPU per store, the facade / PostgreSQL`,
      value: r3(stage.cpu.facadeStore),
      unit: 'ms',
      baseline: r3(stage.cpu.pgStore),
      note: 'baseline: PostgreSQL\'s CPU per store (every server process over the stores above, WAL writer and checkpointer included)',
    },
    {
      metric: `${label}: store p50 within a tenth of the tenant's cell limit`,
      value: p(stage.nearLimitStore, 50),
      unit: 'ms',
      baseline: p(stage.store, 50),
      ratio: r3(percentile(stage.nearLimitStore, 50) / percentile(stage.store, 50)),
      note: `${NEAR_LIMIT_STORES} stores, ${2 * NEAR_LIMIT_STORES} cells of room at the first: a count of the tenant's cells under its lock each time a tenth of the room is used, every store within ten cells (far from the limit, one per 10 s); baseline: the stores above`,
    },
  ];
  if (base !== undefined) {
    rows.push({ metric: `${label}: recall p50 vs at ${base.cells.toLocaleString('en-US')} cells`, value: p(stage.recall, 50), unit: 'ms', baseline: p(base.recall, 50), ratio: r3(percentile(stage.recall, 50) / percentile(base.recall, 50)), note: `cells ×${r3(stage.cells / base.cells)}` });
  }
  for (const at of stage.recallAt10 ?? []) {
    rows.push({
      metric: `${label}: HNSW recall@10 vs exact search, ef_search ${at.efSearch}`,
      value: r3(at.recall),
      unit: 'fraction',
      target: '≥ 0.95',
      note: `${EXACT_QUERIES} queries; a row counts when as near as the 10th exact neighbour; exact = sequential scan + sort; PostgreSQL CPU per kNN ${r3(at.pgCpuMs)} ms`,
    });
  }
  return rows;
}

async function sizeRows(db: Db, cells: number): Promise<BenchRow[]> {
  const { rows } = await db.query<{ heap: number; indexes: number; hnsw: number; total: number; database: number }>(
    `SELECT pg_table_size('cells')::float8 AS heap, pg_indexes_size('cells')::float8 AS indexes, pg_relation_size('cells_embedding')::float8 AS hnsw,
       pg_total_relation_size('cells')::float8 AS total, pg_database_size(current_database())::float8 AS database`,
  );
  const size = rows[0] as { heap: number; indexes: number; hnsw: number; total: number; database: number };
  const perMillion = (bytes: number): number => r3((bytes / 2 ** 30) * (1_000_000 / cells));
  return [
    {
      metric: 'PostgreSQL size per million cells (cells, every index)',
      value: perMillion(size.total),
      unit: 'GiB',
      note: `heap with TOAST ${perMillion(size.heap)} GiB, indexes ${perMillion(size.indexes)} GiB of which HNSW ${perMillion(size.hnsw)} GiB; the whole database ${perMillion(size.database)} GiB; ${SCALE_DIMENSION}-d vectors, ~25-character contents`,
    },
  ];
}

/** Grows one tenant to `sizes` (ascending; the first is the baseline) and measures each. */
export async function scaleCellRows(server: RealPostgres, sizes: readonly number[]): Promise<BenchRow[]> {
  const largest = sizes[sizes.length - 1] as number;
  if (largest > ScaleVectors.capacity) throw new Error(`BENCH_SCALE_CELLS: at most ${ScaleVectors.capacity} cells`);
  const vectors = await ScaleVectors.load();
  const url = await createDatabase(server, 'scale_cells');
  const loader = await openPgDb({ url, max: 1, statementTimeoutMs: 0 });
  const rows: BenchRow[] = [];
  try {
    await migrate(loader, { modelId: SCALE_MODEL_ID, dimension: SCALE_DIMENSION });
    const { rows: definition } = await loader.query<{ def: string }>(`SELECT pg_get_indexdef('cells_embedding'::regclass) AS def`);
    const indexDefinition = withBenchHnsw((definition[0] as { def: string }).def);
    await vectors.upload(loader);
    let loaded = 0;
    let base: StageFigures | undefined;
    for (const [i, size] of sizes.entries()) {
      await loader.query(`DROP INDEX IF EXISTS cells_embedding`);
      const started = performance.now();
      await loadCells(loader, loaded, size);
      // As after any bulk load: without it autovacuum visits the fresh rows while the stores below are timed.
      await loader.query('VACUUM cells');
      rows.push({ metric: `load cells ${loaded.toLocaleString('en-US')} → ${size.toLocaleString('en-US')}`, value: r3((performance.now() - started) / 1000), unit: 's', note: 'INSERT … SELECT, vectors built in SQL' });
      loaded = size;
      const stage = await measureStage(loader, url, indexDefinition, size, vectors, i * (STORES + NEAR_LIMIT_STORES) + STORE_VECTOR_OFFSET);
      rows.push(...stageRows(stage, base));
      base ??= stage;
    }
    rows.push(...(await sizeRows(loader, largest)));
  } finally {
    await loader.close();
  }
  // Nothing of the million cells may cost the server anything while the later parts measure it.
  await dropDatabase(server, 'scale_cells');
  return rows;
}
