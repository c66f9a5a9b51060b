/**
 * Native PostgreSQL 18 with pgvector (scripts/postgres-assets.sh, started as the tests start it),
 * with PGlite beside it, every figure a ratio to a baseline measured in the same run:
 * - recall: the facade's recall p50/p99 against a plain `pg` client on the same server and data
 *   that embeds the query with the same embedder and sends the bare SQL of the same HNSW query
 *   (its vector bound in binary, as the facade binds it)
 *   (the bare SQL alone, and the facade's own SQL, beside it), interleaved call by call, and HNSW
 *   recall@10 against exact search; at the largest size also for other ef_search values;
 * - store throughput with 1, 8 and 32 concurrent clients over one and two replicas (each its own
 *   pool and facade in this process), against one client on one replica;
 * - beacon matching per store at few vs many beacons;
 * - hybrid recall against vector recall through the facade, at every table size.
 * A missing PostgreSQL fails the section.
 *
 * BENCH_PG_CELLS: table sizes (default 10000,100000). BENCH_PG_EF_SEARCH: the alternative
 * ef_search values measured at the largest size (default 100,250). BENCH_PG_BEACONS and
 * BENCH_PGLITE_BEACONS: beacon counts (default 10,100000 and 10,10000: PGlite builds a 100k HNSW
 * index in minutes). BENCH_PG_STORES: stores per throughput figure (default 400). BENCH_PG_PARTS:
 * `recall`, `stores` (throughput and beacons), `pglite`, comma-separated (default all). Hash embedder
 * (512-d), the same synthetic corpus as the PGlite store bench, bulk-loaded and indexed after.
 */
import pg from 'pg';
import type { Principal } from '../src/core/principal.js';
import type { Embedder } from '../src/embed/embedder.js';
import { HashEmbedder } from '../src/embed/hash-embedder.js';
import { MINILM_MODEL_ID } from '../src/embed/minilm-embedder.js';
import { createMemoryFacade, type ManagedMemoryFacade } from '../src/service/index.js';
import { defaultHybridWeightsFor } from '../src/service/facade-config.js';
import type { Db } from '../src/store/db.js';
import { migrate } from '../src/store/migrator.js';
import { openPgDb } from '../src/store/pg-driver.js';
import { openPgliteDb } from '../src/store/pglite-driver.js';
import { KNN_DEFAULTS } from '../src/store/knn-session.js';
import { toVectorParam, type VectorParam } from '../src/store/vector-param.js';
import type { RealPostgres } from '../test/support/real-postgres.js';
import { elapsedMs, perSecond, round } from './harness/measure.js';
import { percentile, type BenchRow, type BenchSection } from './harness/section.js';
import { syntheticCorpus } from './corpus.js';
import { startWireDatabase } from './harness/wire-database.js';
import { hnswLabel } from './harness/hnsw-build.js';
import { createDatabase, loadCellDatabase, startBenchPostgres } from './harness/postgres.js';
import { beaconCost, beaconRows, type BeaconCost } from './beacon-cost.js';
import { bulkLoad } from './harness/bulk-load.js';

const TENANT = 'bench';
const PROJECT = 'default';
const CORPUS_SEED = 42;
const QUERY_SEED = 7;
const QUERIES = 600;
const WARMUP = 50;
const EXACT_QUERIES = 50;
const K = 10;
const ALTERNATIVE_QUERIES = 300;
const CLIENTS = [1, 8, 32] as const;
// Two rows whose 10th and 11th exact distances differ by less than this are a tie.
const TIE = 1e-6;

// What a hand-written client sends: the same filters, order and limit as the facade's kNN (current
// versions only, as a recall returns), with the scan settings the facade uses (iterative scan,
// ef_search) set once on its session; only the project is known to it, not resolved from the sessions.
const BARE_KNN = `SELECT node_id::text AS node_id, (embedding <=> $1::vector)::float8 AS distance FROM cells
  WHERE tenant_id = $2 AND layer = 'L0' AND project = $3 AND valid_until IS NULL ORDER BY embedding <=> $1::vector LIMIT $4`;
// The facade's own statement (src/store/cell-repository.ts nearestCells): the caller's current project
// resolved from the open sessions in the same statement, and current versions only.
const FACADE_KNN = `SELECT node_id::text AS node_id, (embedding <=> $1::vector)::float8 AS distance FROM cells
  WHERE tenant_id = $2 AND layer = 'L0' AND project = COALESCE((SELECT s.project FROM sessions s WHERE s.tenant_id = $2 AND s.agent = 'bench'
    AND s.closed_at IS NULL AND ($3::text[] IS NULL OR s.project = ANY($3::text[])) ORDER BY s.opened_at DESC, s.session_id DESC LIMIT 1), $5)
  AND valid_until IS NULL ORDER BY embedding <=> $1::vector LIMIT $4`;
// One more row than k, to tell ties at the k-th distance.
const EXACT = `SELECT node_id::text AS node_id, (embedding <=> $1::vector)::float8 AS distance FROM cells
  WHERE tenant_id = $2 AND layer = 'L0' AND project = $3 ORDER BY (embedding <=> $1::vector) + 0 LIMIT $4`;

interface Truth {
  readonly ids: ReadonlySet<string>;
  /** The k-th exact distance: a returned row this near is as good as any of the k. */
  readonly kth: number;
  readonly tied: boolean;
}

/** Exact top-k per query (sequential scan + sort), with the k-th distance for tie-aware recall. */
async function exactNeighbours(bare: pg.Client, vectors: readonly VectorParam[]): Promise<Truth[]> {
  const truth: Truth[] = [];
  for (const vector of vectors) {
    const { rows } = await bare.query<{ node_id: string; distance: number }>(EXACT, [vector, TENANT, PROJECT, K + 1]);
    const kth = rows[K - 1]?.distance ?? Number.POSITIVE_INFINITY;
    truth.push({ ids: new Set(rows.slice(0, K).map((r) => r.node_id)), kth, tied: (rows[K]?.distance ?? Number.POSITIVE_INFINITY) - kth < TIE });
  }
  return truth;
}

/**
 * recall@10 two ways: by distance (a returned row counts when it is as near as the k-th exact
 * neighbour, as ann-benchmarks counts it, so a tie at the k-th place is no miss) and by id overlap.
 */
function recallOf(results: readonly (readonly { node_id: string; distance: number }[])[], truth: readonly Truth[]): { byDistance: number; byId: number } {
  let byDistance = 0;
  let byId = 0;
  results.forEach((hits, i) => {
    const t = truth[i] as Truth;
    byDistance += hits.filter((h) => h.distance <= t.kth + TIE).length / K;
    byId += hits.filter((h) => t.ids.has(h.node_id)).length / K;
  });
  return { byDistance: byDistance / results.length, byId: byId / results.length };
}

interface RecallRun {
  readonly facadeMs: number[];
  /** The baseline: the client embeds the query with the same embedder, then sends the bare SQL. */
  readonly bareMs: number[];
  /** The bare SQL alone, its vector computed before the clock starts: what the SQL costs with no embedding. */
  readonly bareSqlMs: number[];
  readonly sameSqlMs: number[];
}

/**
 * Each query through the facade, through a bare client that embeds it and sends the bare SQL, as the
 * bare SQL alone and as the facade's own SQL from the bare client, who goes first rotating.
 */
async function interleaved(
  facade: ManagedMemoryFacade,
  principal: Principal,
  bare: pg.Client,
  embedder: Embedder,
  queries: readonly string[],
  vectors: readonly VectorParam[],
): Promise<RecallRun> {
  const run: RecallRun = { facadeMs: [], bareMs: [], bareSqlMs: [], sameSqlMs: [] };
  const measures = [
    async (i: number): Promise<void> => {
      run.facadeMs.push(await elapsedMs(() => facade.recall(principal, { query: queries[i] as string, k: K, mode: 'vector' })));
    },
    async (i: number): Promise<void> => {
      run.bareMs.push(
        await elapsedMs(async () => {
          const [vector] = await embedder.embed([queries[i] as string]);
          return bare.query(BARE_KNN, [toVectorParam(vector as Float32Array), TENANT, PROJECT, K]);
        }),
      );
    },
    async (i: number): Promise<void> => {
      run.bareSqlMs.push(await elapsedMs(() => bare.query(BARE_KNN, [vectors[i], TENANT, PROJECT, K])));
    },
    async (i: number): Promise<void> => {
      run.sameSqlMs.push(await elapsedMs(() => bare.query(FACADE_KNN, [vectors[i], TENANT, [PROJECT], K, PROJECT])));
    },
  ];
  // Interleaved so all see the same background load; the one going second finds that query's index pages cached.
  for (let i = 0; i < queries.length; i++) {
    for (let j = 0; j < measures.length; j++) await (measures[(i + j) % measures.length] as (i: number) => Promise<void>)(i);
  }
  return run;
}

/**
 * In how many queries the facade and the bare SQL return the same rows (ids and distances). As sets:
 * the relaxed-order scan hands the bare client its rows nearly sorted, the facade sorts them, and rows
 * at the same distance come in either order.
 */
function sameRows(a: readonly (readonly { node_id: string; distance: number }[])[], b: readonly (readonly { node_id: string; distance: number }[])[]): number {
  const key = (hits: readonly { node_id: string; distance: number }[]): string =>
    hits
      .map((h) => `${h.node_id}:${h.distance}`)
      .sort()
      .join(',');
  return a.filter((hits, i) => key(hits) === key(b[i] ?? [])).length;
}

async function recallAt(server: RealPostgres, cells: number, alternatives: readonly number[], rows: BenchRow[]): Promise<void> {
  const embedder = new HashEmbedder();
  const { url, indexMs } = await loadCellDatabase(server, `bench_${cells}`, embedder, syntheticCorpus(cells, CORPUS_SEED));
  const bare = new pg.Client({ connectionString: url });
  const opened: { db: Db; facade: ManagedMemoryFacade }[] = [];
  const openFacade = async (efSearch: number): Promise<{ facade: ManagedMemoryFacade; principal: Principal }> => {
    const db = await openPgDb({ url, knn: { efSearch } });
    const facade = createMemoryFacade({ db, embedder, config: { hitFlushIntervalMs: 3_600_000 } });
    opened.push({ db, facade });
    const key = await facade.keyAdmin.createKey({ tenant: TENANT, agent: 'bench', default_project: PROJECT, projects: [PROJECT] });
    return { facade, principal: await facade.authenticate(key.key) };
  };
  try {
    const label = `native ${cells / 1000}k`;
    rows.push({ metric: `${label}: HNSW index build after bulk load`, value: round(indexMs / 1000), unit: 's', note: `${cells} vectors, ${embedder.dimension}-d, ${hnswLabel()}` });

    await bare.connect();
    const queries = syntheticCorpus(QUERIES, QUERY_SEED);
    const vectors = (await embedder.embed(queries)).map((v) => toVectorParam(v));
    const truth = await exactNeighbours(bare, vectors.slice(0, EXACT_QUERIES));
    const tied = truth.filter((t) => t.tied).length;
    for (const efSearch of [KNN_DEFAULTS.efSearch, ...alternatives]) {
      const chosen = efSearch === KNN_DEFAULTS.efSearch;
      const { facade, principal } = await openFacade(efSearch);
      await bare.query(`SET hnsw.iterative_scan = ${KNN_DEFAULTS.iterativeScan}; SET hnsw.ef_search = ${efSearch}`);
      const count = chosen ? queries.length : ALTERNATIVE_QUERIES;
      for (let i = 0; i < WARMUP; i++) {
        await facade.recall(principal, { query: queries[i] as string, k: K, mode: 'vector' });
        await bare.query(BARE_KNN, [vectors[i], TENANT, PROJECT, K]);
      }
      const run = await interleaved(facade, principal, bare, embedder, queries.slice(0, count), vectors);
      const approx = [];
      const bareRows = [];
      for (let i = 0; i < EXACT_QUERIES; i++) {
        approx.push((await facade.recall(principal, { query: queries[i] as string, k: K, mode: 'vector' })).results);
        bareRows.push((await bare.query<{ node_id: string; distance: number }>(BARE_KNN, [vectors[i], TENANT, PROJECT, K])).rows);
      }
      const recall = recallOf(approx, truth);
      const settings = `ef_search ${efSearch}${chosen ? ' (default)' : ''}`;
      const [p50, p99, bareP50, bareP99] = [percentile(run.facadeMs, 50), percentile(run.facadeMs, 99), percentile(run.bareMs, 50), percentile(run.bareMs, 99)];
      const [sqlP50, sqlP99] = [percentile(run.bareSqlMs, 50), percentile(run.bareSqlMs, 99)];
      rows.push({
        metric: `${label}, ${settings}: recall p50 (facade)`,
        value: round(p50),
        unit: 'ms',
        baseline: round(bareP50),
        ratio: round(p50 / bareP50),
        target: '≤ 1.3×',
        note: `baseline: a plain pg client with the same scan settings, same server and data, that embeds the query with the same embedder and sends the same HNSW query as bare SQL (same k ${K}, filters and columns; the same rows as the facade in ${sameRows(approx, bareRows)} of ${EXACT_QUERIES} queries); ${count} queries, each sent by all four measures, who goes first rotating; hash embedder`,
      });
      rows.push({ metric: `${label}, ${settings}: recall p99 (facade)`, value: round(p99), unit: 'ms', baseline: round(bareP99), ratio: round(p99 / bareP99), target: '≤ 1.3×' });
      rows.push({
        metric: `${label}, ${settings}: recall p50 (facade) ÷ the bare SQL alone`,
        value: round(p50),
        unit: 'ms',
        baseline: round(sqlP50),
        ratio: round(p50 / sqlP50),
        note: `the same bare SQL with its vector computed before the clock starts (no embedding: the facade still embeds); p99 ${round(p99)} / ${round(sqlP99)} ms = ${round(p99 / sqlP99)}×`,
      });
      const sameP50 = percentile(run.sameSqlMs, 50);
      rows.push({
        metric: `${label}, ${settings}: the facade's own kNN SQL from the bare client (p50)`,
        value: round(sameP50),
        unit: 'ms',
        baseline: round(sqlP50),
        ratio: round(sameP50 / sqlP50),
        note: `baseline: the bare SQL alone; what the facade's filter costs in SQL (the current project resolved from the open sessions); facade ÷ this = ${round(p50 / sameP50)}× is the rest (embedding, validation, the driver)`,
      });
      rows.push({
        metric: `${label}, ${settings}: HNSW recall@10 vs exact search`,
        value: round(recall.byDistance),
        unit: 'fraction',
        target: '≥ 0.95',
        note: `${EXACT_QUERIES} queries; a row counts when as near as the 10th exact neighbour (ties at the 10th place: ${tied} of ${EXACT_QUERIES} queries); by id overlap ${round(recall.byId)}; iterative scan ${KNN_DEFAULTS.iterativeScan}; exact = sequential scan + sort`,
      });
    }
    await hybridRows(url, embedder, queries, label, rows);
  } finally {
    await bare.end().catch(() => undefined);
    for (const { db, facade } of opened) {
      await facade.close();
      await db.close();
    }
  }
}

/**
 * What hybrid recall costs against vector recall, both through the facade on the same data, query by
 * query, who goes first rotating: with feature hashing's weights (its default: every query's rarer
 * words and identifiers looked up on the GIN index, then scored with the nearest cells), and with the
 * weights of a model of meaning (minilm's: only identifiers looked up; a query without one is a plain kNN).
 */
async function hybridRows(url: string, embedder: Embedder, queries: readonly string[], label: string, rows: BenchRow[]): Promise<void> {
  const db = await openPgDb({ url });
  const lexicalWeights = createMemoryFacade({ db, embedder, config: { hitFlushIntervalMs: 3_600_000 } });
  const meaningWeights = createMemoryFacade({ db, embedder, config: { hitFlushIntervalMs: 3_600_000, hybridWeights: defaultHybridWeightsFor(MINILM_MODEL_ID) } });
  try {
    const key = await lexicalWeights.keyAdmin.createKey({ tenant: TENANT, agent: 'hybrid-bench', default_project: PROJECT, projects: [PROJECT] });
    const principal = await lexicalWeights.authenticate(key.key);
    const times = { vector: [] as number[], hybrid: [] as number[], meaning: [] as number[] };
    const measures = [
      async (query: string): Promise<void> => void times.vector.push(await elapsedMs(() => lexicalWeights.recall(principal, { query, k: K, mode: 'vector' }))),
      async (query: string): Promise<void> => void times.hybrid.push(await elapsedMs(() => lexicalWeights.recall(principal, { query, k: K, mode: 'hybrid' }))),
      async (query: string): Promise<void> => void times.meaning.push(await elapsedMs(() => meaningWeights.recall(principal, { query, k: K, mode: 'hybrid' }))),
    ];
    for (const query of queries.slice(0, WARMUP)) for (const measure of measures) await measure(query);
    for (const list of Object.values(times)) list.length = 0;
    for (const [i, query] of queries.entries()) {
      for (let j = 0; j < measures.length; j++) await (measures[(i + j) % measures.length] as (query: string) => Promise<void>)(query);
    }
    const [vectorP50, vectorP99] = [percentile(times.vector, 50), percentile(times.vector, 99)];
    for (const [name, list, weights] of [
      ['hash weights', times.hybrid, lexicalWeights.config.hybridWeights],
      ["a meaning model's weights", times.meaning, meaningWeights.config.hybridWeights],
    ] as const) {
      const [p50, p99] = [percentile(list, 50), percentile(list, 99)];
      rows.push({
        metric: `${label}: hybrid recall p50 (facade, ${name})`,
        value: round(p50),
        unit: 'ms',
        baseline: round(vectorP50),
        ratio: round(p50 / vectorP50),
        target: '≤ 1.3×',
        note: `baseline: vector recall through the same facade, same queries (k ${K}, ${queries.length} each, interleaved); identifier ${weights.identifier}, text ${weights.text}; p99 ${round(p99)} / ${round(vectorP99)} ms = ${round(p99 / vectorP99)}×`,
      });
    }
  } finally {
    await lexicalWeights.close();
    await meaningWeights.close();
    await db.close();
  }
}

/** Stores per second with `clients` concurrent callers spread over the facades (replicas). */
async function storeRate(facades: readonly ManagedMemoryFacade[], writers: readonly Principal[], clients: number, texts: readonly string[]): Promise<number> {
  let next = 0;
  const ms = await elapsedMs(() => Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      const facade = facades[c % facades.length] as ManagedMemoryFacade;
      const writer = writers[c] as Principal;
      for (let i = next++; i < texts.length; i = next++) await facade.store(writer, { content: texts[i] as string, cell_type: 'Fact', salience: 0.5 });
    }),
  ));
  return perSecond(texts.length, ms);
}

/**
 * Store throughput over one and two replicas (each its own pool and facade, in this process: on
 * two shared cores the replicas share one event loop, so this shows the database side — pools,
 * row locks, commits — not CPU scaling). Ten watchers' beacons make some stores write diffs.
 */
async function throughput(label: string, connect: () => Promise<Db>, maxReplicas: 1 | 2, stores: number, rows: BenchRow[]): Promise<void> {
  const embedder = new HashEmbedder();
  const pools: Db[] = [];
  const facades: ManagedMemoryFacade[] = [];
  try {
    const first = await connect();
    pools.push(first);
    await migrate(first, { modelId: embedder.modelId, dimension: embedder.dimension });
    const interests = syntheticCorpus(10, 99);
    await bulkLoad(first, 'beacons', interests, await embedder.embed(interests));
    const admin = createMemoryFacade({ db: first, embedder, config: { hitFlushIntervalMs: 3_600_000 } });
    facades.push(admin);
    const writers: Principal[] = [];
    for (let c = 0; c < Math.max(...CLIENTS); c++) {
      const key = await admin.keyAdmin.createKey({ tenant: TENANT, agent: `writer-${c}`, projects: [PROJECT] });
      writers.push(await admin.authenticate(key.key));
    }
    const replicaSets: ManagedMemoryFacade[][] = [[admin]];
    if (maxReplicas === 2) {
      const second = await connect();
      pools.push(second);
      const other = createMemoryFacade({ db: second, embedder, config: { hitFlushIntervalMs: 3_600_000 } });
      facades.push(other);
      replicaSets.push([admin, other]);
    }
    const texts = syntheticCorpus((stores * CLIENTS.length + 50) * replicaSets.length + 50, QUERY_SEED + 2);
    let offset = 0;
    const take = (n: number): string[] => texts.slice(offset, (offset += n));
    let baseline: number | undefined;
    for (const replicas of replicaSets) {
      // Opens every replica's pooled connections before anything is measured.
      await storeRate(replicas, writers, Math.max(...CLIENTS), take(50));
      for (const clients of CLIENTS) {
        const rate = await storeRate(replicas, writers, clients, take(stores));
        baseline ??= rate;
        rows.push({
          metric: `${label}: store throughput, ${clients} client${clients > 1 ? 's' : ''}, ${replicas.length} replica${replicas.length > 1 ? 's' : ''}`,
          value: round(rate),
          unit: 'stores/s',
          baseline: round(baseline),
          ratio: round(rate / baseline),
          note: `${stores} stores through the facade (hash embedder, 10 beacons); baseline: 1 client, 1 replica; pool ${first.driver === 'pglite' ? '1 (PGlite)' : '10'} per replica`,
        });
      }
    }
    const { rows: counted } = await first.query<{ n: number }>(`SELECT count(*)::int AS n FROM diffs`);
    rows.push({ metric: `${label}: diffs written per store (throughput run)`, value: round((counted[0]?.n ?? 0) / (texts.length || 1)), unit: 'diffs' });
  } finally {
    for (const facade of facades) await facade.close();
    for (const db of pools) await db.close();
  }
}

export async function beaconCosts(counts: readonly number[], open: (count: number) => Promise<Db>): Promise<BeaconCost[]> {
  const embedder = new HashEmbedder();
  const costs: BeaconCost[] = [];
  for (const count of counts) {
    const db = await open(count);
    try {
      await migrate(db, { modelId: embedder.modelId, dimension: embedder.dimension });
      costs.push(await beaconCost(db, count));
    } finally {
      await db.close();
    }
  }
  return costs;
}

export function sizes(name: string, fallback: string, minimum: number): number[] {
  const values = (process.env[name] ?? fallback).split(',').map(Number);
  if (values.some((n) => !Number.isInteger(n) || n < minimum)) throw new Error(`${name} must be integers ≥ ${minimum}, comma-separated`);
  return values;
}

export async function runPgBench(): Promise<BenchSection> {
  const cellSizes = sizes('BENCH_PG_CELLS', '10000,100000', 100);
  const alternatives = sizes('BENCH_PG_EF_SEARCH', '100,250', 1);
  const beacons = sizes('BENCH_PG_BEACONS', '10,100000', 10);
  const pgliteBeacons = sizes('BENCH_PGLITE_BEACONS', '10,10000', 10);
  const [stores] = sizes('BENCH_PG_STORES', '400', 10);
  const parts = (process.env.BENCH_PG_PARTS ?? 'recall,stores,pglite').split(',');
  const server = await startBenchPostgres();
  const rows: BenchRow[] = [];
  try {
    const largest = Math.max(...cellSizes);
    if (parts.includes('recall')) for (const cells of cellSizes) await recallAt(server, cells, cells === largest ? alternatives : [], rows);
    if (parts.includes('stores')) {
      const storeUrl = await createDatabase(server, 'bench_stores');
      await throughput('native', () => openPgDb({ url: storeUrl }), 2, stores ?? 400, rows);
      rows.push(...beaconRows(await beaconCosts(beacons, async (count) => openPgDb({ url: await createDatabase(server, `bench_beacons_${count}`), statementTimeoutMs: 0 })), 'native: '));
    }
  } finally {
    await server.close();
  }
  if (!parts.includes('pglite')) return { name: 'native PostgreSQL 18 + pgvector 0.8', rows };
  // PGlite beside it: embedded (one process, one session), and two replicas sharing one PGlite over the wire protocol (the clustered set-up before native PostgreSQL).
  await throughput('PGlite embedded', () => openPgliteDb({}), 1, stores ?? 400, rows);
  const wire = await startWireDatabase(new HashEmbedder());
  try {
    await throughput('PGlite over the wire', () => wire.connect(10), 2, stores ?? 400, rows);
  } finally {
    await wire.close();
  }
  rows.push(...beaconRows(await beaconCosts(pgliteBeacons, () => openPgliteDb({})), 'PGlite: '));
  return { name: 'native PostgreSQL 18 + pgvector 0.8, PGlite beside it', rows };
}
