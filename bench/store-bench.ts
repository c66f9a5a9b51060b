/**
 * The memory engine on PGlite: store throughput against embedding-only throughput, recall
 * latency against the bare SQL kNN on the same data, HNSW recall@10 against exact search, and the
 * cost of matching one store against 10 / 1 000 / N beacons.
 *
 * BENCH_SCALE: `small` (CI-sized), `standard` (default, a few minutes: 10k cells, 10k beacons),
 * `full` (adds 100k cells and 100k beacons; building a 100k HNSW index in PGlite's WASM takes
 * several minutes per table); BENCH_STORE_PARTS picks parts (`hnsw`, only when named: store CPU per
 * set of HNSW build parameters, BENCH_STORE_HNSW). Bulk-loaded tables are filled first and indexed after, as a
 * restore would; the store figures always go through the facade with the index in place.
 */
import type { Embedder } from '../src/embed/embedder.js';
import { HashEmbedder } from '../src/embed/hash-embedder.js';
import { MiniLmEmbedder } from '../src/embed/minilm-embedder.js';
import { UseLiteEmbedder } from '../src/embed/use-lite-embedder.js';
import { reembedDatabase, REEMBED_DEFAULT_BATCH_SIZE } from '../src/service/index.js';
import { migrate } from '../src/store/migrator.js';
import { openPgliteDb } from '../src/store/pglite-driver.js';
import { analyzeMemoryTables } from '../src/store/statistics-repository.js';
import { toVectorParam } from '../src/store/vector-param.js';
import { beaconCost, beaconRows, type BeaconCost } from './beacon-cost.js';
import { syntheticCorpus } from './corpus.js';
import { alternate } from './harness/alternate.js';
import { BULK_KEY, BULK_PROJECT, BULK_TENANT, bulkLoad } from './harness/bulk-load.js';
import { openEngine, type BenchEngine } from './harness/engine.js';
import { elapsedMs, perSecond, ratio, round, summarise, timed } from './harness/measure.js';
import type { BenchRow, BenchSection } from './harness/section.js';
import { storeHnswCostRows } from './store-hnsw-cost.js';

export interface StoreScale {
  readonly name: string;
  readonly hashCells: readonly number[];
  readonly modelCells: number;
  readonly modelStores: number;
  readonly beacons: readonly number[];
  readonly queries: number;
  readonly exactQueries: number;
  /** Stores measured through the facade (the rest of a table is bulk-loaded). */
  readonly measuredStores: number;
}

const SCALES: Readonly<Record<string, StoreScale>> = {
  small: { name: 'small', hashCells: [2_000], modelCells: 1_000, modelStores: 50, beacons: [10, 1_000, 5_000], queries: 100, exactQueries: 30, measuredStores: 500 },
  standard: { name: 'standard', hashCells: [10_000], modelCells: 10_000, modelStores: 200, beacons: [10, 1_000, 10_000], queries: 300, exactQueries: 50, measuredStores: 2_000 },
  full: { name: 'full', hashCells: [10_000, 100_000], modelCells: 10_000, modelStores: 200, beacons: [10, 1_000, 100_000], queries: 300, exactQueries: 50, measuredStores: 2_000 },
};

const CORPUS_SEED = 42;
const QUERY_SEED = 7;

const KNN_SQL = `SELECT node_id::text AS node_id, (embedding <=> $1::vector)::float8 AS distance FROM cells
  WHERE tenant_id = $2 AND project = $3 AND layer = 'L0' ORDER BY embedding <=> $1::vector LIMIT $4`;
// Adding 0 hides the operator from the planner: a sequential scan and a sort, the exact answer.
const EXACT_SQL = `SELECT node_id::text AS node_id FROM cells
  WHERE tenant_id = $2 AND project = $3 AND layer = 'L0' ORDER BY (embedding <=> $1::vector) + 0 LIMIT $4`;

interface RecallFigures {
  readonly p50: number;
  readonly p99: number;
  readonly bareP50: number;
  readonly bareP99: number;
  readonly recallAt10: number;
}

async function measureRecall(engine: BenchEngine, embedder: Embedder, queries: readonly string[], exactQueries: number): Promise<RecallFigures> {
  // What the runtime's periodic ANALYZE does in embedded mode.
  await analyzeMemoryTables(engine.db);
  const vectors = (await embedder.embed(queries)).map((v) => toVectorParam(v));
  const recall = (query: string): Promise<unknown> => engine.facade.recall(engine.principal, { query, k: 10, mode: 'vector' });
  for (const q of queries.slice(0, 20)) await recall(q);
  // Each query through the facade and as bare SQL, paired, so both see the same cache state and background noise.
  const facadeMs: number[] = [];
  const bareMs: number[] = [];
  for (let i = 0; i < queries.length; i++) {
    await alternate(
      {
        facade: async () => void facadeMs.push(await elapsedMs(() => recall(queries[i] as string))),
        bare: async () => void bareMs.push(await elapsedMs(() => engine.db.query(KNN_SQL, [vectors[i], BULK_TENANT, BULK_PROJECT, 10]))),
      },
      1,
    );
  }
  let overlap = 0;
  for (let i = 0; i < exactQueries; i++) {
    const approx = await engine.facade.recall(engine.principal, { query: queries[i] as string, k: 10, mode: 'vector' });
    const exact = await engine.db.query<{ node_id: string }>(EXACT_SQL, [vectors[i], BULK_TENANT, BULK_PROJECT, 10]);
    const truth = new Set(exact.rows.map((r) => r.node_id));
    overlap += approx.results.filter((r) => truth.has(r.node_id)).length / Math.max(1, truth.size);
  }
  await engine.facade.flushHits();
  const facade = summarise(facadeMs);
  const bare = summarise(bareMs);
  return { p50: facade.p50, p99: facade.p99, bareP50: bare.p50, bareP99: bare.p99, recallAt10: overlap / exactQueries };
}

/** Stores through the facade, one call per cell as an agent does; returns cells per second. */
async function storeRate(engine: BenchEngine, texts: readonly string[]): Promise<number> {
  const ms = await elapsedMs(async () => {
    for (const content of texts) await engine.facade.store(engine.principal, { content, cell_type: 'Fact', salience: 0.5 });
  });
  return perSecond(texts.length, ms);
}

async function singleEmbedRate(embedder: Embedder, texts: readonly string[]): Promise<number> {
  const ms = await elapsedMs(async () => {
    for (const text of texts) await embedder.embed([text]);
  });
  return perSecond(texts.length, ms);
}

function recallRows(label: string, r: RecallFigures, p50Note: string, exactNote?: string): BenchRow[] {
  return [
    { metric: `${label}: recall p50 (facade${label.startsWith('hash') ? '' : ', embeds the query'})`, value: round(r.p50), unit: 'ms', baseline: round(r.bareP50), ratio: ratio(r.p50, r.bareP50), ...(label.startsWith('hash') ? { target: '≤ 1.3×' } : {}), note: p50Note },
    { metric: `${label}: recall p99 (facade)`, value: round(r.p99), unit: 'ms', baseline: round(r.bareP99), ratio: ratio(r.p99, r.bareP99) },
    { metric: `${label}: HNSW recall@10 vs exact search`, value: round(r.recallAt10), unit: 'fraction', ...(exactNote === undefined ? {} : { note: exactNote }) },
  ];
}

async function hashPart(scale: StoreScale, rows: BenchRow[]): Promise<void> {
  const embedder = new HashEmbedder();
  const corpus = syntheticCorpus(Math.max(...scale.hashCells) + scale.measuredStores, CORPUS_SEED);
  const queries = syntheticCorpus(scale.queries, QUERY_SEED);
  for (const cells of scale.hashCells) {
    const label = `hash ${cells / 1000}k`;
    const engine = await openEngine(embedder, { key: BULK_KEY });
    try {
      let note: string;
      if (cells <= scale.measuredStores * 5) {
        // The whole table goes through the facade: store throughput with the index maintained.
        const rate = await storeRate(engine, corpus.slice(0, cells));
        const embedRate = await singleEmbedRate(embedder, corpus.slice(0, cells));
        rows.push({ metric: `${label}: store throughput (facade, index maintained)`, value: round(rate), unit: 'cells/s', baseline: round(embedRate), ratio: ratio(embedRate, rate), note: `baseline: hash embedding alone, one text per call; ratio = store time ÷ embed time; ${cells} stores` });
        note = 'all cells stored through the facade';
      } else {
        const bulk = cells - scale.measuredStores;
        const indexMs = await bulkLoad(engine.db, 'cells', corpus.slice(0, bulk), await embedder.embed(corpus.slice(0, bulk)));
        rows.push({ metric: `${label}: HNSW index build after bulk load`, value: round(indexMs / 1000), unit: 's', note: `${bulk} vectors, PGlite (WASM, one core)` });
        const rate = await storeRate(engine, corpus.slice(bulk, cells));
        const embedRate = await singleEmbedRate(embedder, corpus.slice(bulk, cells));
        rows.push({ metric: `${label}: store throughput (facade, last ${scale.measuredStores} cells)`, value: round(rate), unit: 'cells/s', baseline: round(embedRate), ratio: ratio(embedRate, rate), note: 'baseline: hash embedding alone; ratio = store time ÷ embed time' });
        note = `${bulk} bulk-loaded + ${scale.measuredStores} stored through the facade`;
      }
      const r = await measureRecall(engine, embedder, queries, scale.exactQueries);
      rows.push(...recallRows(label, r, `baseline: bare SQL kNN, same filters and data; ${note}`, `${scale.exactQueries} queries; exact = sequential scan + sort`));
    } finally {
      await engine.close();
    }
  }
}

/** A model embedder (minilm, the default, or use-lite) at 10k cells: what storage adds to embedding. */
async function modelPart(scale: StoreScale, rows: BenchRow[], kind: 'minilm' | 'use-lite'): Promise<void> {
  const embedder = kind === 'minilm' ? new MiniLmEmbedder() : new UseLiteEmbedder();
  await embedder.warmUp();
  const cells = scale.modelCells;
  const corpus = syntheticCorpus(cells, CORPUS_SEED);
  const label = `${kind} ${cells / 1000}k`;
  const engine = await openEngine(embedder, { key: BULK_KEY });
  try {
    const bulk = cells - scale.modelStores;
    const { value: vectors, ms: batchMs } = await timed(async () => {
      const out: Float32Array[] = [];
      for (let i = 0; i < bulk; i += 64) out.push(...(await embedder.embed(corpus.slice(i, i + 64))));
      return out;
    });
    rows.push({ metric: `${label}: batched embedding (bulk part)`, value: round(perSecond(bulk, batchMs)), unit: 'texts/s', note: `${bulk} texts in batches of 64, precomputed once for the bulk load` });
    const indexMs = await bulkLoad(engine.db, 'cells', corpus.slice(0, bulk), vectors);
    rows.push({ metric: `${label}: HNSW index build after bulk load`, value: round(indexMs / 1000), unit: 's', note: `${bulk} vectors` });
    // Same texts, same call shape (one text per call, as a store embeds), paired so both see the same machine load: the difference is storage.
    const stored = corpus.slice(bulk);
    let embedMs = 0;
    let storeMs = 0;
    for (const content of stored) {
      embedMs += await elapsedMs(() => embedder.embed([content]));
      storeMs += await elapsedMs(() => engine.facade.store(engine.principal, { content, cell_type: 'Fact', salience: 0.5 }));
    }
    rows.push({
      metric: `${label}: store throughput (facade)`,
      value: round(perSecond(stored.length, storeMs)),
      unit: 'cells/s',
      baseline: round(perSecond(stored.length, embedMs)),
      ratio: ratio(storeMs, embedMs),
      target: '≤ 1.25× (storage adds ≤ 25%)',
      note: `baseline: ${kind} embedding alone, one text per call, same ${stored.length} texts, interleaved with the stores; ratio = store time ÷ embed time`,
    });
    const r = await measureRecall(engine, embedder, syntheticCorpus(Math.min(scale.queries, 150), QUERY_SEED), Math.min(scale.exactQueries, 30));
    rows.push(...recallRows(label, r, 'baseline: bare SQL kNN; the gap is the query embedding'));
  } finally {
    await engine.close();
    await embedder.close();
  }
}

/** `hyphae reembed`'s engine: a hash-embedded table moved to minilm, against embedding the same texts alone. */
async function reembedPart(scale: StoreScale, rows: BenchRow[]): Promise<void> {
  const cells = Math.min(scale.modelCells, 1_000);
  const hash = new HashEmbedder();
  const corpus = syntheticCorpus(cells, CORPUS_SEED + 1);
  const engine = await openEngine(hash, { key: BULK_KEY });
  const minilm = new MiniLmEmbedder();
  try {
    await bulkLoad(engine.db, 'cells', corpus, await hash.embed(corpus));
    await minilm.warmUp();
    const embedMs = await elapsedMs(async () => {
      for (let i = 0; i < cells; i += REEMBED_DEFAULT_BATCH_SIZE) await minilm.embed(corpus.slice(i, i + REEMBED_DEFAULT_BATCH_SIZE));
    });
    const { value: outcome, ms } = await timed(() => reembedDatabase(engine.db, minilm));
    if (outcome.status !== 'done' || outcome.rows !== cells) throw new Error(`reembed bench: expected ${cells} rows re-embedded, got ${JSON.stringify(outcome)}`);
    rows.push({
      metric: `reembed hash → minilm, ${cells} cells`,
      value: round(perSecond(cells, ms)),
      unit: 'cells/s',
      baseline: round(perSecond(cells, embedMs)),
      ratio: ratio(ms, embedMs),
      note: `baseline: minilm embedding the same texts in calls of ${REEMBED_DEFAULT_BATCH_SIZE}; ratio = reembed time ÷ embed time (adds the row writes, column swap and HNSW rebuild)`,
    });
  } finally {
    await engine.close();
    await minilm.close();
  }
}

async function beaconPart(scale: StoreScale, rows: BenchRow[]): Promise<void> {
  const embedder = new HashEmbedder();
  const costs: BeaconCost[] = [];
  for (const count of scale.beacons) {
    const db = await openPgliteDb({});
    try {
      await migrate(db, { modelId: embedder.modelId, dimension: embedder.dimension });
      costs.push(await beaconCost(db, count));
    } finally {
      await db.close();
    }
  }
  rows.push(...beaconRows(costs, ''));
}

export async function runStoreBench(): Promise<BenchSection> {
  const scale = SCALES[process.env.BENCH_SCALE ?? 'standard'] ?? (SCALES.standard as StoreScale);
  // BENCH_STORE_PARTS=hash,minilm,use-lite,reembed,beacons runs a subset (those by default); hnsw runs only when named.
  const parts = new Set((process.env.BENCH_STORE_PARTS ?? 'hash,minilm,use-lite,reembed,beacons').split(','));
  const rows: BenchRow[] = [];
  if (parts.has('hash')) await hashPart(scale, rows);
  if (parts.has('minilm')) await modelPart(scale, rows, 'minilm');
  if (parts.has('use-lite')) await modelPart(scale, rows, 'use-lite');
  if (parts.has('reembed')) await reembedPart(scale, rows);
  if (parts.has('beacons')) await beaconPart(scale, rows);
  if (parts.has('hnsw')) rows.push(...(await storeHnswCostRows(scale.measuredStores, CORPUS_SEED)));
  return { name: `store (scale ${scale.name})`, rows };
}
