/**
 * What learning costs recall (issue 46), part of `npm run bench learning`: BENCH_LEARNING_CELLS cells
 * (default 10,000) bulk-loaded and BENCH_LEARNING_JUDGED judged requests (default 10,000; one piece of
 * evidence each on a random cell, as many distinct queries), then the same recalls with learning on
 * and off over that one database, in turns query by query (bench/harness/alternate.ts), each of the
 * 100 queries BENCH_LEARNING_ROUNDS times a side (default 20); p50 on ÷ p50 off per mode (target ≤
 * 1.15×), on each database of BENCH_LEARNING_DB (pglite,native by default; native when PostgreSQL
 * with pgvector is found). Feature hashing embeds, so the statement is what is measured, at each
 * vector size of BENCH_LEARNING_DIMENSIONS (default 512,384): 512 is feature hashing's own, 384 the
 * default model's — the size decides whether a cell's vector fits in its row (docs/storage.md).
 */
import { randomUUID } from 'node:crypto';
import type { SearchMode } from '../src/core/cell-types.js';
import { HashEmbedder } from '../src/embed/hash-embedder.js';
import { createMemoryFacade, type ManagedMemoryFacade } from '../src/service/index.js';
import type { Db } from '../src/store/db.js';
import { estimatedShare, readCellStatistics } from '../src/store/cell-statistics.js';
import { coversMostCells } from '../src/store/learnt-nearest.js';
import { migrate } from '../src/store/migrator.js';
import { analyzeMemoryTables } from '../src/store/statistics-repository.js';
import { toVectorText } from '../src/store/vector-text.js';
import { syntheticCorpus, seededRandom } from './corpus.js';
import { alternate } from './harness/alternate.js';
import { BULK_KEY, BULK_PROJECT, BULK_TENANT, bulkLoad } from './harness/bulk-load.js';
import { openBenchDb } from './harness/database.js';
import { QUIET_HITS } from './harness/engine.js';
import { elapsedMs, round } from './harness/measure.js';
import { percentile, type BenchRow } from './harness/section.js';
import { findPostgresRoot } from '../test/support/real-postgres.js';

const QUERIES = 100;
const MODES: readonly SearchMode[] = ['vector', 'hybrid'];

export async function learningCostRows(rows: BenchRow[]): Promise<void> {
  const kinds = (process.env.BENCH_LEARNING_DB ?? (findPostgresRoot() === undefined ? 'pglite' : 'pglite,native')).split(',');
  const dimensions = (process.env.BENCH_LEARNING_DIMENSIONS ?? '512,384').split(',').map(Number);
  for (const dimension of dimensions) {
    for (const kind of kinds) {
      const bench = await openBenchDb(kind, 'BENCH_LEARNING_DB');
      try {
        await costRows(bench.db, bench.label, dimension, rows);
      } finally {
        await bench.close();
      }
    }
  }
}

async function costRows(db: Db, label: string, dimension: number, rows: BenchRow[]): Promise<void> {
  const cells = Number(process.env.BENCH_LEARNING_CELLS ?? 10_000);
  const judged = Number(process.env.BENCH_LEARNING_JUDGED ?? 10_000);
  const rounds = Number(process.env.BENCH_LEARNING_ROUNDS ?? 20);
  const embedder = new HashEmbedder({ dimension });
  await migrate(db, { modelId: embedder.modelId, dimension: embedder.dimension });
  const facades: ManagedMemoryFacade[] = [];
  const facade = (feedbackLearning: boolean): ManagedMemoryFacade => {
    const made = createMemoryFacade({ db, embedder, config: { ...QUIET_HITS, feedbackLearning } });
    facades.push(made);
    return made;
  };
  try {
    const texts = syntheticCorpus(cells, 21);
    await bulkLoad(db, 'cells', texts, await embedder.embed(texts));
    const ids = (await db.query<{ node_id: string }>('SELECT node_id::text AS node_id FROM cells ORDER BY node_id')).rows.map((r) => r.node_id);
    const asked = syntheticCorpus(judged, 22).map((text, i) => `${text} (${i})`);
    const vectors = await embedder.embed(asked);
    const random = seededRandom(23);
    for (let i = 0; i < judged; i += 500) {
      const batch = asked.slice(i, i + 500).map((text, j) => ({ id: randomUUID(), node: ids[Math.floor(random() * ids.length)], vector: toVectorText(vectors[i + j] as Float32Array), text, request: `req-${i + j}` }));
      await db.query(
        `INSERT INTO cell_evidence (evidence_id, tenant_id, node_id, embedding, weight, trust, agent, label, request_id, query_text, created_at)
         SELECT r.id, $2, r.node, r.vector::vector, 0.5, 0.5, 'judge', 'agent', r.request, r.text, now() FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, node uuid, vector text, text text, request text)`,
        [JSON.stringify(batch), BULK_TENANT],
      );
    }
    await analyzeMemoryTables(db);
    await db.query('ANALYZE cell_evidence');
    const sides = { on: facade(true), off: facade(false) };
    const principal = await sides.on.authenticate((await sides.on.keyAdmin.createKey({ ...BULK_KEY, agent: 'bench' })).key);
    const queries = syntheticCorpus(QUERIES, 24);
    // Whether learnt vector recall takes the statement planned once (src/store/learnt-nearest.ts): the tenant, layer and project hold most of the cells.
    const statistics = await readCellStatistics(db);
    const searched = { tenant_id: BULK_TENANT, layer: 'L0', project: BULK_PROJECT };
    const planning = `the tenant, layer and project hold ${Math.round(estimatedShare(statistics, searched) * 100)}% of the cells: vector recall with learning is ${coversMostCells(statistics, searched) ? 'planned once' : 'planned per call'}`;
    for (const mode of MODES) {
      const recallOne = (side: ManagedMemoryFacade) => (turn: number): Promise<number> =>
        elapsedMs(() => side.recall(principal, { query: queries[(turn + QUERIES) % QUERIES] as string, k: 10, mode }));
      const measured = await alternate({ on: recallOne(sides.on), off: recallOne(sides.off) }, rounds * QUERIES, { warmup: QUERIES });
      const [on, off] = [percentile(measured.on, 50), percentile(measured.off, 50)];
      rows.push({
        metric: `recall p50, ${mode}, learning on vs off (${label}, ${cells} cells, ${judged} judged requests, ${dimension}-d vectors)`,
        value: round(on),
        unit: 'ms',
        baseline: round(off),
        ratio: round(on / off),
        target: '≤ 1.15×',
        note: `${QUERIES} queries ${rounds} times a side, in turns (k 10); p95 on ${round(percentile(measured.on, 95))} ms, off ${round(percentile(measured.off, 95))} ms${mode === 'vector' ? `; ${planning}` : ''}`,
      });
    }
  } finally {
    for (const made of facades) await made.close();
    await embedder.close();
  }
}
