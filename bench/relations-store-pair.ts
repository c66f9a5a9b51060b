/**
 * The store pair of `npm run bench relations` (issue 45): a store declaring 3 relations against a
 * store declaring none, taken in turns (bench/harness/alternate.ts), p50 as a ratio (target ≤ 1.1×).
 * Measured twice: over the relations bench's graph with feature hashing, so the figure is the
 * database's alone; and as a client of a default server sees a store — the default model (MiniLM)
 * embeds and near-duplicate reinforcement is on — over its own database of BENCH_RELATIONS_MODEL_CELLS
 * cells (default 5,000). Each store's text is a distinct sentence of the synthetic corpus.
 */
import type { Embedder } from '../src/embed/embedder.js';
import { MiniLmEmbedder } from '../src/embed/minilm-embedder.js';
import type { ManagedMemoryFacade } from '../src/service/index.js';
import { createMemoryFacade } from '../src/service/index.js';
import { openPgDb } from '../src/store/pg-driver.js';
import { alternate } from './harness/alternate.js';
import { BULK_KEY, BULK_TENANT } from './harness/bulk-load.js';
import { QUIET_HITS } from './harness/engine.js';
import { timed } from './harness/measure.js';
import { loadCellDatabase, startBenchPostgres } from './harness/postgres.js';
import { ratioRow } from './harness/rows.js';
import { percentile, type BenchRow } from './harness/section.js';
import { syntheticCorpus } from './corpus.js';
import { spreadCells } from './subgraph-graph.js';

const WARMUP = 20;
const TARGETS = 100;

/** Pairs of stores a figure takes (BENCH_RELATIONS_STORE_ROUNDS, default 1,000): a store's p50 moves with its HNSW insert, so a ratio of two needs many. */
export function storeRounds(): number {
  return Number(process.env.BENCH_RELATIONS_STORE_ROUNDS ?? 1_000);
}

interface StorePair {
  readonly related: number[];
  readonly none: number[];
  /** Stores that reinforced a cell instead of adding one (they write no relation row). */
  readonly reinforced: number;
}

/** Each side `rounds` times in turns; `text(side, round)` is the store's content, `targets` what the related side relates to (3 a store). */
export async function storePair(
  facade: ManagedMemoryFacade,
  key: Record<string, unknown>,
  targets: readonly string[],
  text: (side: 'none' | 'related', round: number) => string,
  rounds: number,
): Promise<StorePair> {
  const principal = await facade.authenticate((await facade.keyAdmin.createKey({ ...key, agent: 'bench-stores' })).key);
  const at = (round: number): string => targets[(round + targets.length * 4) % targets.length] as string;
  let reinforced = 0;
  const store = async (side: 'none' | 'related', round: number): Promise<number> => {
    const relations = side === 'none' ? undefined : [0, 1, 2].map((k) => ({ to: at(round * 3 + k), type: 'relates_to' }));
    const { value, ms } = await timed(() => facade.store(principal, { content: text(side, round), cell_type: 'Fact', salience: 0.5, ...(relations === undefined ? {} : { relations }) }));
    if (round >= 0 && value.reinforced) reinforced += 1;
    return ms;
  };
  const times = await alternate({ none: (round: number) => store('none', round), related: (round: number) => store('related', round) }, rounds, { warmup: WARMUP });
  return { ...times, reinforced };
}

/**
 * The texts the pair stores: distinct sentences of the synthetic corpus, the two sides' drawn alike
 * in turns, so neither side's texts sit in a denser part of the HNSW graph than the other's.
 */
export function pairedTexts(seed: number): (side: 'none' | 'related', round: number) => string {
  const texts = syntheticCorpus(2 * (storeRounds() + WARMUP), seed);
  return (side, round) => texts[2 * (round + WARMUP) + (side === 'none' ? 0 : 1)] as string;
}

/** The pair's row: p50 related ÷ p50 none, with the paired difference's median beside it. */
export function storePairRow(metric: string, pair: StorePair): BenchRow {
  const differences = pair.related.map((ms, i) => ms - (pair.none[i] as number));
  return ratioRow(metric, 'ms', percentile(pair.related, 50), percentile(pair.none, 50), {
    target: '≤ 1.1×',
    note: `${pair.none.length} pairs; median of the paired differences ${percentile(differences, 50).toFixed(2)} ms; p90 ${percentile(pair.related, 90).toFixed(1)} vs ${percentile(pair.none, 90).toFixed(1)} ms${pair.reinforced > 0 ? `; ${pair.reinforced} stores reinforced a cell` : ''}`,
  });
}

/** The pair as a client of a default server sees it: MiniLM embeds each store, reinforcement on, native PostgreSQL. */
export async function defaultModelStoreRow(): Promise<BenchRow> {
  const cells = Number(process.env.BENCH_RELATIONS_MODEL_CELLS ?? 5_000);
  const rounds = storeRounds();
  const embedder: Embedder = new MiniLmEmbedder();
  const server = await startBenchPostgres();
  try {
    const { url } = await loadCellDatabase(server, 'relations_model', embedder, syntheticCorpus(cells, 45));
    const db = await openPgDb({ url });
    const facade = createMemoryFacade({ db, embedder, config: QUIET_HITS });
    try {
      const targets = await spreadCells(db, BULK_TENANT, TARGETS);
      const pair = await storePair(facade, BULK_KEY, targets, pairedTexts(46), rounds);
      return storePairRow(`native PostgreSQL 18, ${cells} cells, the default model (${embedder.modelId}) embedding each store: store declaring 3 relations p50 vs a store declaring none`, pair);
    } finally {
      await facade.close();
      await db.close();
    }
  } finally {
    await embedder.close();
    await server.close();
  }
}
