/**
 * Store CPU per set of HNSW build parameters (BENCH_STORE_HNSW, m/ef_construction comma-separated,
 * default 16/64,14/64,12/48; the first is the baseline): one PGlite database per set holding the
 * same bulk-loaded cells, then the same stores through each facade in turns (who goes first
 * rotating), this process's CPU around each store. minilm vectors are embedded once beforehand,
 * so its figure is the store without the model, its near-duplicate probe on as the runtime has it.
 */
import type { Embedder } from '../src/embed/embedder.js';
import { HashEmbedder } from '../src/embed/hash-embedder.js';
import { MINILM_MODEL_ID, MiniLmEmbedder } from '../src/embed/minilm-embedder.js';
import { defaultRestatementSimilarityFor, type FacadeConfig } from '../src/service/index.js';
import { syntheticCorpus } from './corpus.js';
import { rotation } from './harness/alternate.js';
import { BULK_KEY, bulkLoad } from './harness/bulk-load.js';
import { precomputedEmbedder } from './harness/embedders.js';
import { openEngine, type BenchEngine } from './harness/engine.js';
import { parseHnswBuild } from './harness/hnsw-build.js';
import { elapsedMs, ratio, round } from './harness/measure.js';
import type { BenchRow } from './harness/section.js';

/** Rows of store CPU per build, over the corpus of `corpusSeed`. */
export async function storeHnswCostRows(measuredStores: number, corpusSeed: number): Promise<BenchRow[]> {
  const builds = (process.env.BENCH_STORE_HNSW ?? '16/64,14/64,12/48').split(',').map(parseHnswBuild);
  const loaded = 1_000;
  const stores = Math.min(measuredStores, 1_000);
  const corpus = syntheticCorpus(loaded + stores, corpusSeed);
  const minilm = new MiniLmEmbedder();
  const minilmVectors: Float32Array[] = [];
  try {
    for (let i = 0; i < corpus.length; i += 64) minilmVectors.push(...(await minilm.embed(corpus.slice(i, i + 64))));
  } finally {
    await minilm.close();
  }
  const kinds: readonly { label: string; embedder: Embedder; config: Partial<FacadeConfig> }[] = [
    { label: 'hash', embedder: new HashEmbedder(), config: {} },
    { label: 'minilm (vectors precomputed)', embedder: precomputedEmbedder(MINILM_MODEL_ID, corpus, minilmVectors), config: { restatementSimilarity: defaultRestatementSimilarityFor(MINILM_MODEL_ID) } },
  ];
  const rows: BenchRow[] = [];
  for (const { label, embedder, config } of kinds) {
    const engines: BenchEngine[] = [];
    try {
      const vectors = await embedder.embed(corpus.slice(0, loaded));
      for (const build of builds) {
        const engine = await openEngine(embedder, { config, key: BULK_KEY });
        engines.push(engine);
        await bulkLoad(engine.db, 'cells', corpus.slice(0, loaded), vectors, build);
      }
      const cpuMs = builds.map(() => 0);
      const wallMs = builds.map(() => 0);
      for (let i = 0; i < stores; i++) {
        const content = corpus[loaded + i] as string;
        for (const k of rotation([...engines.keys()], i)) {
          const engine = engines[k] as BenchEngine;
          const before = process.cpuUsage();
          wallMs[k] = (wallMs[k] as number) + (await elapsedMs(() => engine.facade.store(engine.principal, { content, cell_type: 'Fact', salience: 0.5 })));
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
  return rows;
}
