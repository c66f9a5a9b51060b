/**
 * Recall over sources against recall over plain cells (issue 44): BENCH_SOURCES_RECALL_N (default
 * 10,000) one-chunk sources in one store and the same texts as plain cells in another, each on
 * embedded PGlite with the hash embedder (so the query's embedding costs next to nothing and the
 * figure is the database's and the facade's), then the same queries recalled (k 10) on both in
 * alternating rounds; p50 of each, sources ÷ cells.
 */
import { HashEmbedder } from '../src/embed/hash-embedder.js';
import { syntheticCorpus } from './corpus.js';
import { alternate } from './harness/alternate.js';
import { openEngine, type BenchEngine } from './harness/engine.js';
import { elapsedMs, round } from './harness/measure.js';
import { percentile, type BenchRow } from './harness/section.js';

const QUERIES = 100;
const ROUNDS = 5;

async function timedRecalls(engine: BenchEngine, queries: readonly string[], kind: 'all' | 'knowledge'): Promise<number[]> {
  const samples: number[] = [];
  for (const query of queries) samples.push(await elapsedMs(() => engine.facade.recall(engine.principal, { query, k: 10, kind })));
  return samples;
}

export async function sourceRecallLatencyRows(): Promise<BenchRow[]> {
  const n = Number(process.env.BENCH_SOURCES_RECALL_N ?? '10000');
  const texts = syntheticCorpus(n, 44);
  const queries = syntheticCorpus(QUERIES, 4_400);
  const embedder = new HashEmbedder();
  const limits = { maxCellsPerTenant: n * 2 };
  const sources = await openEngine(embedder, { config: limits });
  const cells = await openEngine(embedder, { config: { ...limits, restatementSimilarity: null } });
  try {
    for (const [i, text] of texts.entries()) {
      await sources.facade.ingestSource(sources.principal, { text, source_id: `note-${i}` });
      await cells.facade.store(cells.principal, { content: text, cell_type: 'Context', salience: 0.5 });
    }
    const runs = await alternate(
      {
        sources: () => timedRecalls(sources, queries, 'all'),
        knowledge: () => timedRecalls(sources, queries, 'knowledge'),
        cells: () => timedRecalls(cells, queries, 'all'),
      },
      ROUNDS,
      { warmup: 1 },
    );
    const p50 = (samples: number[][]): number => round(percentile(samples.flat(), 50));
    const cellsP50 = p50(runs.cells);
    return [
      { metric: `recall p50 over ${n} sources`, value: p50(runs.sources), unit: 'ms', baseline: cellsP50, ratio: round(p50(runs.sources) / cellsP50, 2), note: `baseline: ${n} plain cells, same texts` },
      { metric: `recall p50 over ${n} sources, kind: knowledge`, value: p50(runs.knowledge), unit: 'ms', baseline: cellsP50, ratio: round(p50(runs.knowledge) / cellsP50, 2) },
      { metric: `recall p50 over ${n} plain cells`, value: cellsP50, unit: 'ms', note: `${QUERIES} queries × ${ROUNDS} rounds, k 10, hash embedder` },
    ];
  } finally {
    await sources.close();
    await cells.close();
  }
}
