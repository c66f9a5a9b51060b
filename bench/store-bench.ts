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
import { randomUUID } from 'node:crypto';
import { HashEmbedder } from '../src/embed/hash-embedder.js';
import type { Embedder } from '../src/embed/embedder.js';
import { MINILM_MODEL_ID, MiniLmEmbedder } from '../src/embed/minilm-embedder.js';
import { UseLiteEmbedder } from '../src/embed/use-lite-embedder.js';
import { DEFAULT_ENERGY_TABLE } from '../src/core/energy.js';
import { identifierTokens } from '../src/core/identifier-tokens.js';
import type { Principal } from '../src/core/principal.js';
import { BeaconMatcher } from '../src/mesh/beacon-matcher.js';
import { createMemoryFacade, type ManagedMemoryFacade } from '../src/service/index.js';
import { defaultNearDuplicateSimilarityFor, type FacadeConfig } from '../src/service/facade-config.js';
import type { Db } from '../src/store/db.js';
import { migrate, readEmbeddingIdentity } from '../src/store/migrator.js';
import { reembedDatabase, REEMBED_DEFAULT_BATCH_SIZE } from '../src/service/reembed/reembed-database.js';
import { openPgliteDb } from '../src/store/pglite-driver.js';
import { cellTermsOf, tenantTermPrefix } from '../src/store/lexical-terms.js';
import { analyzeMemoryTables } from '../src/store/statistics-repository.js';
import { toVectorParam, type VectorParam } from '../src/store/vector-param.js';
import { toVectorText } from '../src/store/vector-text.js';
import { percentile, type BenchRow, type BenchSection } from './bench-section.js';
import { createBenchVectorIndex, parseHnswBuild } from './hnsw-build.js';
import type { HnswBuildParameters } from '../src/store/vector-indexes.js';
import { seededRandom, syntheticCorpus } from './corpus.js';

interface Scale {
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

const SCALES: Readonly<Record<string, Scale>> = {
  small: { name: 'small', hashCells: [2_000], modelCells: 1_000, modelStores: 50, beacons: [10, 1_000, 5_000], queries: 100, exactQueries: 30, measuredStores: 500 },
  standard: { name: 'standard', hashCells: [10_000], modelCells: 10_000, modelStores: 200, beacons: [10, 1_000, 10_000], queries: 300, exactQueries: 50, measuredStores: 2_000 },
  full: { name: 'full', hashCells: [10_000, 100_000], modelCells: 10_000, modelStores: 200, beacons: [10, 1_000, 100_000], queries: 300, exactQueries: 50, measuredStores: 2_000 },
};

const TENANT = 'bench';
const PROJECT = 'default';
const CORPUS_SEED = 42;
const QUERY_SEED = 7;
const LOAD_BATCH = 500;

interface Engine {
  readonly db: Db;
  readonly facade: ManagedMemoryFacade;
  readonly principal: Principal;
  close(): Promise<void>;
}

async function openEngine(embedder: Embedder, config: Partial<FacadeConfig> = {}): Promise<Engine> {
  const db = await openPgliteDb({});
  await migrate(db, { modelId: embedder.modelId, dimension: embedder.dimension });
  const facade = createMemoryFacade({ db, embedder, config: { hitFlushIntervalMs: 3_600_000, ...config } });
  const key = await facade.keyAdmin.createKey({ tenant: TENANT, agent: 'bench', default_project: PROJECT, projects: [PROJECT] });
  const principal = await facade.authenticate(key.key);
  return {
    db,
    facade,
    principal,
    async close(): Promise<void> {
      await facade.close();
      await db.close();
    },
  };
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - started };
}

/** Bulk-loads rows with their vectors into `table`, with the HNSW index dropped during the load and rebuilt after. */
export async function bulkLoad(db: Db, kind: 'cells' | 'beacons', texts: readonly string[], vectors: readonly Float32Array[], build?: HnswBuildParameters): Promise<number> {
  const index = kind === 'cells' ? 'cells_embedding' : 'beacons_embedding';
  await db.query(`DROP INDEX IF EXISTS ${index}`);
  for (let i = 0; i < texts.length; i += LOAD_BATCH) {
    const batch = texts
      .slice(i, i + LOAD_BATCH)
      .map((text, j) => ({ id: randomUUID(), text, vector: toVectorText(vectors[i + j] as Float32Array), ids: identifierTokens(text) }));
    // Cells with their lexical terms, as the store writes them (src/store/cell-repository.ts insertCell).
    const sql =
      kind === 'cells'
        ? `WITH loaded AS (
             INSERT INTO cells (node_id, tenant_id, project, content, cell_type, salience, source_agent, embedding)
             SELECT r.id, $2, $3, r.text, 'Fact', 0.5, 'loader', r.vector::vector FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, text text, vector text)
             RETURNING node_id, content)
           INSERT INTO cell_tenant_terms (node_id, terms)
           SELECT loaded.node_id, ${cellTermsOf('$4::text', 'loaded.content', 'ARRAY(SELECT jsonb_array_elements_text(r.ids))')}
           FROM loaded JOIN jsonb_to_recordset($1::jsonb) AS r(id uuid, ids jsonb) ON r.id = loaded.node_id`
        : `INSERT INTO beacons (beacon_id, tenant_id, owner_agent, owner_projects, text, embedding, threshold)
           SELECT r.id, $2, 'watcher-' || (abs(hashtext(r.text)) % 500)::text, ARRAY[$3], r.text, r.vector::vector, 0.4
           FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, text text, vector text)`;
    await db.query(sql, kind === 'cells' ? [JSON.stringify(batch), TENANT, PROJECT, tenantTermPrefix(TENANT)] : [JSON.stringify(batch), TENANT, PROJECT]);
  }
  const started = performance.now();
  await db.query(`SET maintenance_work_mem = '1GB'`);
  await createBenchVectorIndex(db, kind, (await readEmbeddingIdentity(db))?.modelId ?? '', build);
  const ms = performance.now() - started;
  await analyzeMemoryTables(db);
  return ms;
}

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

async function measureRecall(engine: Engine, embedder: Embedder, queries: readonly string[], exactQueries: number): Promise<RecallFigures> {
  // What the runtime's periodic ANALYZE does in embedded mode.
  await analyzeMemoryTables(engine.db);
  const vectors = (await embedder.embed(queries)).map((v) => toVectorParam(v));
  for (const q of queries.slice(0, 20)) await engine.facade.recall(engine.principal, { query: q, k: 10, mode: 'vector' });
  const facadeMs: number[] = [];
  const bareMs: number[] = [];
  // Interleaved so both see the same cache state and background noise.
  for (let i = 0; i < queries.length; i++) {
    facadeMs.push((await timed(() => engine.facade.recall(engine.principal, { query: queries[i] as string, k: 10, mode: 'vector' }))).ms);
    bareMs.push((await timed(() => engine.db.query(KNN_SQL, [vectors[i], TENANT, PROJECT, 10]))).ms);
  }
  let overlap = 0;
  for (let i = 0; i < exactQueries; i++) {
    const approx = await engine.facade.recall(engine.principal, { query: queries[i] as string, k: 10, mode: 'vector' });
    const exact = await engine.db.query<{ node_id: string }>(EXACT_SQL, [vectors[i], TENANT, PROJECT, 10]);
    const truth = new Set(exact.rows.map((r) => r.node_id));
    overlap += approx.results.filter((r) => truth.has(r.node_id)).length / Math.max(1, truth.size);
  }
  await engine.facade.flushHits();
  return {
    p50: percentile(facadeMs, 50),
    p99: percentile(facadeMs, 99),
    bareP50: percentile(bareMs, 50),
    bareP99: percentile(bareMs, 99),
    recallAt10: overlap / exactQueries,
  };
}

/** Stores through the facade, one call per cell as an agent does; returns cells per second. */
async function storeRate(engine: Engine, texts: readonly string[]): Promise<number> {
  const { ms } = await timed(async () => {
    for (const content of texts) await engine.facade.store(engine.principal, { content, cell_type: 'Fact', salience: 0.5 });
  });
  return texts.length / (ms / 1000);
}

async function singleEmbedRate(embedder: Embedder, texts: readonly string[]): Promise<number> {
  const { ms } = await timed(async () => {
    for (const text of texts) await embedder.embed([text]);
  });
  return texts.length / (ms / 1000);
}

function ratio(value: number, baseline: number): number {
  return Number((value / baseline).toFixed(3));
}

function round(value: number, digits = 3): number {
  return Number(value.toPrecision(digits));
}

async function hashSection(scale: Scale, rows: BenchRow[]): Promise<void> {
  const embedder = new HashEmbedder();
  const maxCells = Math.max(...scale.hashCells);
  const corpus = syntheticCorpus(maxCells + scale.measuredStores, CORPUS_SEED);
  const queries = syntheticCorpus(scale.queries, QUERY_SEED);
  for (const cells of scale.hashCells) {
    const label = `hash ${cells / 1000}k`;
    const engine = await openEngine(embedder);
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
        const vectors = await embedder.embed(corpus.slice(0, bulk));
        const indexMs = await bulkLoad(engine.db, 'cells', corpus.slice(0, bulk), vectors);
        rows.push({ metric: `${label}: HNSW index build after bulk load`, value: round(indexMs / 1000), unit: 's', note: `${bulk} vectors, PGlite (WASM, one core)` });
        const rate = await storeRate(engine, corpus.slice(bulk, cells));
        const embedRate = await singleEmbedRate(embedder, corpus.slice(bulk, cells));
        rows.push({ metric: `${label}: store throughput (facade, last ${scale.measuredStores} cells)`, value: round(rate), unit: 'cells/s', baseline: round(embedRate), ratio: ratio(embedRate, rate), note: 'baseline: hash embedding alone; ratio = store time ÷ embed time' });
        note = `${bulk} bulk-loaded + ${scale.measuredStores} stored through the facade`;
      }
      const r = await measureRecall(engine, embedder, queries, scale.exactQueries);
      rows.push({ metric: `${label}: recall p50 (facade)`, value: round(r.p50), unit: 'ms', baseline: round(r.bareP50), ratio: ratio(r.p50, r.bareP50), target: '≤ 1.3×', note: `baseline: bare SQL kNN, same filters and data; ${note}` });
      rows.push({ metric: `${label}: recall p99 (facade)`, value: round(r.p99), unit: 'ms', baseline: round(r.bareP99), ratio: ratio(r.p99, r.bareP99) });
      rows.push({ metric: `${label}: HNSW recall@10 vs exact search`, value: round(r.recallAt10), unit: 'fraction', note: `${scale.exactQueries} queries; exact = sequential scan + sort` });
    } finally {
      await engine.close();
    }
  }
}

/** A model embedder (minilm, the default, or use-lite) at 10k cells: what storage adds to embedding. */
async function modelSection(scale: Scale, rows: BenchRow[], kind: 'minilm' | 'use-lite'): Promise<void> {
  const embedder = kind === 'minilm' ? new MiniLmEmbedder() : new UseLiteEmbedder();
  await embedder.warmUp();
  const cells = scale.modelCells;
  const corpus = syntheticCorpus(cells, CORPUS_SEED);
  const label = `${kind} ${cells / 1000}k`;
  const engine = await openEngine(embedder);
  try {
    const bulk = cells - scale.modelStores;
    const { value: vectors, ms: batchMs } = await timed(async () => {
      const out: Float32Array[] = [];
      for (let i = 0; i < bulk; i += 64) out.push(...(await embedder.embed(corpus.slice(i, i + 64))));
      return out;
    });
    rows.push({ metric: `${label}: batched embedding (bulk part)`, value: round(bulk / (batchMs / 1000)), unit: 'texts/s', note: `${bulk} texts in batches of 64, precomputed once for the bulk load` });
    const indexMs = await bulkLoad(engine.db, 'cells', corpus.slice(0, bulk), vectors);
    rows.push({ metric: `${label}: HNSW index build after bulk load`, value: round(indexMs / 1000), unit: 's', note: `${bulk} vectors` });
    // Same texts, same call shape (one text per call, as a store embeds), interleaved so both see
    // the same machine load: the difference is storage.
    const stored = corpus.slice(bulk);
    let embedMs = 0;
    let storeMs = 0;
    for (const content of stored) {
      embedMs += (await timed(() => embedder.embed([content]))).ms;
      storeMs += (await timed(() => engine.facade.store(engine.principal, { content, cell_type: 'Fact', salience: 0.5 }))).ms;
    }
    const embedRate = stored.length / (embedMs / 1000);
    const rate = stored.length / (storeMs / 1000);
    rows.push({
      metric: `${label}: store throughput (facade)`,
      value: round(rate),
      unit: 'cells/s',
      baseline: round(embedRate),
      ratio: ratio(embedRate, rate),
      target: '≤ 1.25× (storage adds ≤ 25%)',
      note: `baseline: ${kind} embedding alone, one text per call, same ${stored.length} texts, interleaved with the stores; ratio = store time ÷ embed time`,
    });
    const r = await measureRecall(engine, embedder, syntheticCorpus(Math.min(scale.queries, 150), QUERY_SEED), Math.min(scale.exactQueries, 30));
    rows.push({ metric: `${label}: recall p50 (facade, embeds the query)`, value: round(r.p50), unit: 'ms', baseline: round(r.bareP50), ratio: ratio(r.p50, r.bareP50), note: 'baseline: bare SQL kNN; the gap is the query embedding' });
    rows.push({ metric: `${label}: recall p99 (facade)`, value: round(r.p99), unit: 'ms', baseline: round(r.bareP99), ratio: ratio(r.p99, r.bareP99) });
    rows.push({ metric: `${label}: HNSW recall@10 vs exact search`, value: round(r.recallAt10), unit: 'fraction' });
  } finally {
    await engine.close();
    await embedder.close();
  }
}

/** `hyphae reembed`'s engine: a hash-embedded table moved to minilm, against embedding the same texts alone. */
async function reembedSection(scale: Scale, rows: BenchRow[]): Promise<void> {
  const cells = Math.min(scale.modelCells, 1_000);
  const hash = new HashEmbedder();
  const corpus = syntheticCorpus(cells, CORPUS_SEED + 1);
  const engine = await openEngine(hash);
  const minilm = new MiniLmEmbedder();
  try {
    await bulkLoad(engine.db, 'cells', corpus, await hash.embed(corpus));
    await minilm.warmUp();
    const { ms: embedMs } = await timed(async () => {
      for (let i = 0; i < cells; i += REEMBED_DEFAULT_BATCH_SIZE) await minilm.embed(corpus.slice(i, i + REEMBED_DEFAULT_BATCH_SIZE));
    });
    const { value: outcome, ms } = await timed(() => reembedDatabase(engine.db, minilm));
    if (outcome.status !== 'done' || outcome.rows !== cells) throw new Error(`reembed bench: expected ${cells} rows re-embedded, got ${JSON.stringify(outcome)}`);
    rows.push({
      metric: `reembed hash → minilm, ${cells} cells`,
      value: round(cells / (ms / 1000)),
      unit: 'cells/s',
      baseline: round(cells / (embedMs / 1000)),
      ratio: ratio(ms, embedMs),
      note: `baseline: minilm embedding the same texts in calls of ${REEMBED_DEFAULT_BATCH_SIZE}; ratio = reembed time ÷ embed time (adds the row writes, column swap and HNSW rebuild)`,
    });
  } finally {
    await engine.close();
    await minilm.close();
  }
}

/** Beacon texts of random tokens: near no cell, so the measure is the index scan, not the diffs. */
function noiseTexts(n: number, seed: number): string[] {
  const random = seededRandom(seed);
  const token = (): string => Math.floor(random() * 36 ** 6).toString(36);
  return Array.from({ length: n }, () => Array.from({ length: 6 }, token).join(' '));
}

export interface BeaconCost {
  readonly beacons: number;
  readonly p50: number;
  readonly p99: number;
  readonly matches: number;
  readonly storeP50: number;
  readonly diffs: number;
  readonly exhaustiveP50: number;
}

/** Loads `count` beacons (five real interests among noise) into a migrated, empty database and measures matching one store against them. */
export async function beaconCost(db: Db, count: number): Promise<BeaconCost> {
  const embedder = new HashEmbedder();
  const matcher = new BeaconMatcher({ reachFactor: 0.15, energyTable: DEFAULT_ENERGY_TABLE });
  const cells = syntheticCorpus(200, QUERY_SEED + 1);
  const cellVectors = (await embedder.embed(cells)).map((v) => toVectorParam(v));
  // Five real interests (memories of the same kind as the cells) among the noise, so every size also finds some matches.
  const interests = syntheticCorpus(5, 99);
  const texts = [...interests, ...noiseTexts(count - interests.length, count)];
  await bulkLoad(db, 'beacons', texts, await embedder.embed(texts));
  const samples: number[] = [];
  let matches = 0;
  for (let round = 0; round < 2; round++) {
    for (let i = 0; i < cells.length; i++) {
      const { value, ms } = await timed(() =>
        db.transaction((tx) =>
          matcher.match(tx, { tenantId: TENANT, project: PROJECT, cellType: 'Decision', salience: 0.5, sceneId: null, sourceAgent: 'author', embedding: cellVectors[i] as VectorParam }, new Date()),
        ),
      );
      // The first round warms the index pages; the second is measured.
      if (round === 1) {
        samples.push(ms);
        matches += value.length;
      }
    }
  }
  // What matching would cost without the index: every beacon of the tenant compared.
  const exhaustive: number[] = [];
  for (const vector of cellVectors.slice(0, 20)) {
    exhaustive.push((await timed(() => db.query(`SELECT count(*) FROM beacons WHERE tenant_id = $1 AND 1 - ((embedding <=> $2::vector) + 0) >= threshold - 0.0675`, [TENANT, vector]))).ms);
  }
  // The same, end to end: a store through the facade (embed, insert, match, diffs, commit).
  const facade = createMemoryFacade({ db, embedder, config: { hitFlushIntervalMs: 3_600_000 } });
  const key = await facade.keyAdmin.createKey({ tenant: TENANT, agent: 'author', projects: [PROJECT] });
  const author = await facade.authenticate(key.key);
  const storeMs: number[] = [];
  for (const content of cells.slice(0, 100)) storeMs.push((await timed(() => facade.store(author, { content, cell_type: 'Decision', salience: 0.5 }))).ms);
  const { rows: diffRows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM diffs`);
  await facade.close();
  return { beacons: count, p50: percentile(samples, 50), p99: percentile(samples, 99), matches: matches / cells.length, storeP50: percentile(storeMs.slice(20), 50), diffs: (diffRows[0]?.n ?? 0) / 100, exhaustiveP50: percentile(exhaustive, 50) };
}

/** Rows of beacon costs, each a ratio to the first (smallest) count, measured in the same run. */
export function beaconRows(costs: readonly BeaconCost[], label: string): BenchRow[] {
  const rows: BenchRow[] = [];
  const base = costs[0];
  for (const c of costs) {
    rows.push({
      metric: `${label}beacon matching per store, ${c.beacons} beacons (p50)`,
      value: round(c.p50),
      unit: 'ms',
      ...(base === undefined || c === base ? {} : { baseline: round(base.p50), ratio: ratio(c.p50, base.p50) }),
      ...(c === costs[costs.length - 1] && c !== base ? { target: `≤ 3× the ${base?.beacons ?? ''}-beacon cost` } : {}),
      note: `p99 ${round(c.p99)} ms; ${round(c.matches, 2)} matches per store; without the index (every beacon compared) p50 ${round(c.exhaustiveP50)} ms`,
    });
  }
  for (const c of costs) {
    rows.push({
      metric: `${label}store p50 through the facade, ${c.beacons} beacons`,
      value: round(c.storeP50),
      unit: 'ms',
      ...(base === undefined || c === base ? {} : { baseline: round(base.storeP50), ratio: ratio(c.storeP50, base.storeP50) }),
      ...(c === costs[costs.length - 1] && c !== base ? { target: `≤ 3× the ${base?.beacons ?? ''}-beacon cost` } : {}),
      note: `80 stores measured; ${round(c.diffs, 2)} diffs written per store`,
    });
  }
  return rows;
}

/** An embedder that answers the texts given with their precomputed vectors: a store's CPU without the model's. */
function precomputedEmbedder(modelId: string, texts: readonly string[], vectors: readonly Float32Array[]): Embedder {
  const byText = new Map(texts.map((text, i) => [text, vectors[i] as Float32Array]));
  const dimension = (vectors[0] as Float32Array).length;
  return {
    modelId,
    dimension,
    embed: (batch) => Promise.resolve(batch.map((text) => byText.get(text) ?? new Float32Array(dimension))),
    close: () => Promise.resolve(),
  };
}

/**
 * Store CPU per set of HNSW build parameters (BENCH_STORE_HNSW, m/ef_construction comma-separated,
 * default 16/64,14/64,12/48; the first is the baseline): one PGlite database per set holding the
 * same bulk-loaded cells, then the same stores through each facade in turns (who goes first
 * rotating), this process's CPU around each store. minilm vectors are embedded once beforehand,
 * so its figure is the store without the model, its near-duplicate probe on as the runtime has it.
 */
async function hnswCostSection(scale: Scale, rows: BenchRow[]): Promise<void> {
  const builds = (process.env.BENCH_STORE_HNSW ?? '16/64,14/64,12/48').split(',').map(parseHnswBuild);
  const loaded = 1_000;
  const stores = Math.min(scale.measuredStores, 1_000);
  const corpus = syntheticCorpus(loaded + stores, CORPUS_SEED);
  const minilm = new MiniLmEmbedder();
  const minilmVectors: Float32Array[] = [];
  try {
    for (let i = 0; i < corpus.length; i += 64) minilmVectors.push(...(await minilm.embed(corpus.slice(i, i + 64))));
  } finally {
    await minilm.close();
  }
  const kinds: readonly { label: string; embedder: Embedder; config: Partial<FacadeConfig> }[] = [
    { label: 'hash', embedder: new HashEmbedder(), config: {} },
    { label: 'minilm (vectors precomputed)', embedder: precomputedEmbedder(MINILM_MODEL_ID, corpus, minilmVectors), config: { nearDuplicateSimilarity: defaultNearDuplicateSimilarityFor(MINILM_MODEL_ID) } },
  ];
  for (const { label, embedder, config } of kinds) {
    const engines: Engine[] = [];
    try {
      const vectors = await embedder.embed(corpus.slice(0, loaded));
      for (const build of builds) {
        const engine = await openEngine(embedder, config);
        engines.push(engine);
        await bulkLoad(engine.db, 'cells', corpus.slice(0, loaded), vectors, build);
      }
      const cpuMs = builds.map(() => 0);
      const wallMs = builds.map(() => 0);
      for (let i = 0; i < stores; i++) {
        const content = corpus[loaded + i] as string;
        for (let j = 0; j < engines.length; j++) {
          const k = (i + j) % engines.length;
          const engine = engines[k] as Engine;
          const before = process.cpuUsage();
          wallMs[k] = (wallMs[k] as number) + (await timed(() => engine.facade.store(engine.principal, { content, cell_type: 'Fact', salience: 0.5 }))).ms;
          const used = process.cpuUsage(before);
          cpuMs[k] = (cpuMs[k] as number) + (used.user + used.system) / 1000;
        }
      }
      builds.forEach((build, k) => {
        const cpu = (cpuMs[k] as number) / stores;
        const base = (cpuMs[0] as number) / stores;
        rows.push({
          metric: `${label}: store CPU, HNSW m ${build.m} / ef_construction ${build.efConstruction}`,
          value: round(cpu),
          unit: 'ms',
          ...(k === 0 ? {} : { baseline: round(base), ratio: ratio(cpu, base) }),
          note: `${loaded} cells bulk-loaded, then ${stores} stores in turns with ${builds.length - 1} other parameter set(s); wall ${round((wallMs[k] as number) / stores)} ms per store`,
        });
      });
    } finally {
      for (const engine of engines) await engine.close();
    }
  }
}

async function beaconSection(scale: Scale, rows: BenchRow[]): Promise<void> {
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
  const scale = SCALES[process.env.BENCH_SCALE ?? 'standard'] ?? (SCALES.standard as Scale);
  // BENCH_STORE_PARTS=hash,minilm,use-lite,reembed,beacons runs a subset (those by default); hnsw runs only when named.
  const parts = new Set((process.env.BENCH_STORE_PARTS ?? 'hash,minilm,use-lite,reembed,beacons').split(','));
  const rows: BenchRow[] = [];
  if (parts.has('hash')) await hashSection(scale, rows);
  if (parts.has('minilm')) await modelSection(scale, rows, 'minilm');
  if (parts.has('use-lite')) await modelSection(scale, rows, 'use-lite');
  if (parts.has('reembed')) await reembedSection(scale, rows);
  if (parts.has('beacons')) await beaconSection(scale, rows);
  if (parts.has('hnsw')) await hnswCostSection(scale, rows);
  return { name: `store (scale ${scale.name})`, rows };
}
