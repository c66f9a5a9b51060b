/**
 * Recall on a native PostgreSQL 18 with pgvector (scripts/postgres-assets.sh, started as the
 * tests start it): the facade's recall p50/p99 against the bare SQL of the same HNSW query sent
 * by a plain `pg` client on the same server and data, interleaved call by call, and HNSW
 * recall@10 against exact search. A missing PostgreSQL fails the section.
 *
 * BENCH_PG_CELLS: comma-separated table sizes (default 10000,100000). Hash embedder (512-d), the
 * same synthetic corpus as the PGlite store bench; the table is bulk-loaded and indexed after.
 */
import pg from 'pg';
import type { Principal } from '../src/core/principal.js';
import { HashEmbedder } from '../src/embed/hash-embedder.js';
import { createMemoryFacade, type ManagedMemoryFacade } from '../src/service/create-memory-facade.js';
import type { Db } from '../src/store/db.js';
import { migrate } from '../src/store/migrator.js';
import { openPgDb } from '../src/store/pg-driver.js';
import { analyzeMemoryTables } from '../src/store/statistics-repository.js';
import { toVectorText } from '../src/store/vector-text.js';
import { startRealPostgres, type RealPostgres } from '../test/support/real-postgres.js';
import { percentile, type BenchRow, type BenchSection } from './bench-section.js';
import { syntheticCorpus } from './corpus.js';
import { bulkLoad } from './store-bench.js';

const TENANT = 'bench';
const PROJECT = 'default';
const CORPUS_SEED = 42;
const QUERY_SEED = 7;
const QUERIES = 600;
const WARMUP = 50;
const EXACT_QUERIES = 50;
const K = 10;

// What a hand-written client sends: the same filters, order and limit as the facade's kNN, with the
// scan settings the facade uses (iterative scan, ef_search 40) set once on its session.
const BARE_KNN = `SELECT node_id::text AS node_id, (embedding <=> $1::vector)::float8 AS distance FROM cells
  WHERE tenant_id = $2 AND layer = 'L0' AND project = $3 ORDER BY embedding <=> $1::vector LIMIT $4`;
const EXACT = `SELECT node_id::text AS node_id FROM cells
  WHERE tenant_id = $2 AND layer = 'L0' AND project = $3 ORDER BY (embedding <=> $1::vector) + 0 LIMIT $4`;

function round(value: number, digits = 3): number {
  return Number(value.toPrecision(digits));
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

async function recallAt(server: RealPostgres, cells: number, rows: BenchRow[]): Promise<void> {
  const embedder = new HashEmbedder();
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE bench_${cells}`);
  await admin.end();
  const url = server.url.replace(/\/postgres$/, `/bench_${cells}`);
  const loader = await openPgDb({ url, max: 1, statementTimeoutMs: 0 });
  let db: Db | undefined;
  let facade: ManagedMemoryFacade | undefined;
  const bare = new pg.Client({ connectionString: url });
  try {
    await migrate(loader, { modelId: embedder.modelId, dimension: embedder.dimension });
    const corpus = syntheticCorpus(cells, CORPUS_SEED);
    const indexMs = await bulkLoad(loader, 'cells', corpus, await embedder.embed(corpus));
    await analyzeMemoryTables(loader);
    rows.push({ metric: `native ${cells / 1000}k: HNSW index build after bulk load`, value: round(indexMs / 1000), unit: 's', note: `${cells} vectors, ${embedder.dimension}-d, m 16, ef_construction 64` });

    db = await openPgDb({ url });
    facade = createMemoryFacade({ db, embedder, config: { hitFlushIntervalMs: 3_600_000 } });
    const key = await facade.keyAdmin.createKey({ tenant: TENANT, agent: 'bench', default_project: PROJECT, projects: [PROJECT] });
    const principal: Principal = await facade.authenticate(key.key);
    await bare.connect();
    await bare.query(`SET hnsw.iterative_scan = relaxed_order; SET hnsw.ef_search = 40`);

    const queries = syntheticCorpus(QUERIES, QUERY_SEED);
    const vectors = (await embedder.embed(queries)).map(toVectorText);
    const recall = facade.recall.bind(facade);
    for (let i = 0; i < WARMUP; i++) {
      await recall(principal, { query: queries[i] as string, k: K });
      await bare.query(BARE_KNN, [vectors[i], TENANT, PROJECT, K]);
    }
    const facadeMs: number[] = [];
    const bareMs: number[] = [];
    // Interleaved so both see the same background load, each query sent by both; who goes first
    // alternates, since the second finds the index pages of that query already in the cache.
    for (let i = 0; i < queries.length; i++) {
      const viaFacade = async (): Promise<void> => {
        facadeMs.push(await timed(() => recall(principal, { query: queries[i] as string, k: K })));
      };
      const viaBare = async (): Promise<void> => {
        bareMs.push(await timed(() => bare.query(BARE_KNN, [vectors[i], TENANT, PROJECT, K])));
      };
      for (const measure of i % 2 === 0 ? [viaFacade, viaBare] : [viaBare, viaFacade]) await measure();
    }
    let overlap = 0;
    for (let i = 0; i < EXACT_QUERIES; i++) {
      const approx = await recall(principal, { query: queries[i] as string, k: K });
      const exact = await bare.query<{ node_id: string }>(EXACT, [vectors[i], TENANT, PROJECT, K]);
      const truth = new Set(exact.rows.map((r) => r.node_id));
      overlap += approx.results.filter((r) => truth.has(r.node_id)).length / Math.max(1, truth.size);
    }
    const p50 = percentile(facadeMs, 50);
    const p99 = percentile(facadeMs, 99);
    const bareP50 = percentile(bareMs, 50);
    const bareP99 = percentile(bareMs, 99);
    const label = `native ${cells / 1000}k`;
    rows.push({
      metric: `${label}: recall p50 (facade)`,
      value: round(p50),
      unit: 'ms',
      baseline: round(bareP50),
      ratio: round(p50 / bareP50),
      target: '≤ 1.3×',
      note: `baseline: the same HNSW query as bare SQL from a plain pg client, same server and data; ${queries.length} queries, each sent by both, who goes first alternating; k ${K}, hash embedder (the facade embeds each query)`,
    });
    rows.push({ metric: `${label}: recall p99 (facade)`, value: round(p99), unit: 'ms', baseline: round(bareP99), ratio: round(p99 / bareP99), target: '≤ 1.3×' });
    rows.push({ metric: `${label}: HNSW recall@10 vs exact search`, value: round(overlap / EXACT_QUERIES), unit: 'fraction', target: '≥ 0.95', note: `${EXACT_QUERIES} queries; exact = sequential scan + sort` });
  } finally {
    await bare.end().catch(() => undefined);
    await facade?.close();
    await db?.close();
    await loader.close();
  }
}

export async function runPgBench(): Promise<BenchSection> {
  const sizes = (process.env.BENCH_PG_CELLS ?? '10000,100000').split(',').map(Number);
  if (sizes.some((n) => !Number.isInteger(n) || n < 100)) throw new Error('BENCH_PG_CELLS must be table sizes ≥ 100, comma-separated');
  // Fails the section, naming how to install it, when PostgreSQL with pgvector is absent.
  const server = await startRealPostgres(undefined, { settings: { shared_buffers: '512MB', maintenance_work_mem: '1GB' } });
  const rows: BenchRow[] = [];
  try {
    for (const cells of sizes) await recallAt(server, cells, rows);
  } finally {
    await server.close();
  }
  return { name: 'native PostgreSQL 18 + pgvector 0.8 (recall)', rows };
}
