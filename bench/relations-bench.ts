/**
 * Relations and subgraphs (issue 45), `npm run bench relations`: cells bulk-loaded (hash embedder,
 * the synthetic corpus), the graph of bench/subgraph-graph.ts laid over them, then through the
 * facade, each pair taken in turns in one process (bench/harness/alternate.ts):
 * - a subgraph of depth 3 and 200 members from a spread of cells against one recall (k 10):
 *   p50 as a ratio (target ≤ 2×);
 * - a store declaring 3 relations against a store declaring none: p50 as a ratio (target ≤ 1.1×),
 *   over this graph and again with the default model embedding (bench/relations-store-pair.ts).
 * BENCH_RELATIONS_CELLS: cells (default 100000). BENCH_RELATIONS_DB: native (default) or pglite.
 * BENCH_RELATIONS_ROUNDS: subgraph pairs (default 300); BENCH_RELATIONS_STORE_ROUNDS: store pairs
 * (default 1000); BENCH_RELATIONS_MODEL=off skips the default model's pair.
 */
import { HashEmbedder } from '../src/embed/hash-embedder.js';
import { createMemoryFacade } from '../src/service/index.js';
import type { Db } from '../src/store/db.js';
import { migrate } from '../src/store/migrator.js';
import { openPgDb } from '../src/store/pg-driver.js';
import { alternate } from './harness/alternate.js';
import { BULK_KEY, BULK_PROJECT, BULK_TENANT, bulkLoad } from './harness/bulk-load.js';
import { openBenchDb } from './harness/database.js';
import { QUIET_HITS } from './harness/engine.js';
import { timed } from './harness/measure.js';
import { loadCellDatabase, startBenchPostgres } from './harness/postgres.js';
import { ratioRow } from './harness/rows.js';
import { percentile, type BenchRow, type BenchSection } from './harness/section.js';
import { syntheticCorpus } from './corpus.js';
import { layGraph, spreadCells } from './subgraph-graph.js';
import { defaultModelStoreRow, pairedTexts, storePair, storePairRow, storeRounds } from './relations-store-pair.js';

const CORPUS_SEED = 42;
const QUERY_SEED = 7;
const WARMUP = 20;
const STARTS = 100;
const STORE_SEED = 44;

interface Graph {
  readonly db: Db;
  readonly label: string;
  close(): Promise<void>;
}

/** `cells` cells bulk-loaded with the graph laid over them, on `kind` (native or pglite). */
async function openGraph(kind: string, cells: number, embedder: HashEmbedder): Promise<Graph> {
  const texts = syntheticCorpus(cells, CORPUS_SEED);
  if (kind === 'native') {
    const server = await startBenchPostgres();
    try {
      const { url } = await loadCellDatabase(server, 'relations', embedder, texts, (loader) => layGraph(loader, BULK_TENANT, BULK_PROJECT));
      const db = await openPgDb({ url });
      return { db, label: 'native PostgreSQL 18', close: async () => (await db.close(), await server.close()) };
    } catch (error) {
      await server.close();
      throw error;
    }
  }
  const opened = await openBenchDb(kind, 'BENCH_RELATIONS_DB');
  await migrate(opened.db, { modelId: embedder.modelId, dimension: embedder.dimension });
  await bulkLoad(opened.db, 'cells', texts, await embedder.embed(texts), undefined, (loader) => layGraph(loader, BULK_TENANT, BULK_PROJECT));
  return { db: opened.db, label: opened.label, close: () => opened.close() };
}

export async function runRelationsBench(): Promise<BenchSection> {
  const cells = Number(process.env.BENCH_RELATIONS_CELLS ?? 100_000);
  const rounds = Number(process.env.BENCH_RELATIONS_ROUNDS ?? 300);
  const embedder = new HashEmbedder();
  const graph = await openGraph(process.env.BENCH_RELATIONS_DB ?? 'native', cells, embedder);
  const facade = createMemoryFacade({ db: graph.db, embedder, config: { ...QUIET_HITS, restatementSimilarity: null } });
  const rows: BenchRow[] = [];
  try {
    const principal = await facade.authenticate((await facade.keyAdmin.createKey({ ...BULK_KEY, agent: 'bench' })).key);
    const starts = await spreadCells(graph.db, BULK_TENANT, STARTS);
    const queries = syntheticCorpus(rounds + WARMUP, QUERY_SEED);
    const at = <T>(items: readonly T[], round: number): T => items[(round + items.length) % items.length] as T;
    let members = 0;
    const walks = await alternate(
      {
        recall: async (round) => (await timed(() => facade.recall(principal, { query: at(queries, round + WARMUP), k: 10 }))).ms,
        subgraph: async (round) => {
          const { value, ms } = await timed(() => facade.cellSubgraph(principal, at(starts, round), { depth: 3, max_members: 200 }));
          if (round >= 0) members += value.members.length;
          return ms;
        },
      },
      rounds,
      { warmup: WARMUP },
    );
    rows.push(
      ratioRow(`${graph.label}, ${cells} cells: subgraph depth 3 / 200 members p50 vs one recall (k 10) p50`, 'ms', percentile(walks.subgraph, 50), percentile(walks.recall, 50), {
        target: '≤ 2×',
        note: `${Math.round(members / rounds)} members a walk on average; p99 ${percentile(walks.subgraph, 99).toFixed(1)} vs ${percentile(walks.recall, 99).toFixed(1)} ms`,
      }),
    );
    const stored = await storePair(facade, BULK_KEY, starts, pairedTexts(STORE_SEED), storeRounds());
    rows.push(storePairRow(`${graph.label}, ${cells} cells, feature hashing (the database's cost alone): store declaring 3 relations p50 vs a store declaring none`, stored));
    if (process.env.BENCH_RELATIONS_MODEL !== 'off') rows.push(await defaultModelStoreRow());
    return { name: 'relations', rows };
  } finally {
    await facade.close();
    await graph.close();
  }
}
