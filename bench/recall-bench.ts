/**
 * Recall quality (issue 31), `npm run bench recall`: bench/recall-fixture.ts stored through the
 * facade (embedded PGlite, one project, statistics analysed as the embedded runtime does), then every
 * question recalled (k 10) in each mode; top-1, top-5 and MRR per mode and embedder, per question
 * kind, each mode against vector recall of the same embedder. Beside them: reciprocal rank fusion
 * of the vector and lexical rankings (depth 20, k 60), the alternative the hybrid score was chosen
 * over, and a sweep of the hybrid weights. Then the merge confusion: pairs stored through the
 * facade at the embedder's default similarity — restatements that must reinforce, identical
 * restatements, and statements that must stay two cells (other values, contradictions, another
 * claim about the same subject, another subject, another identifier) — with the merge guard,
 * without its predicate guard, and as the number/negation guard alone would have decided; and the
 * store cost of reinforcement with its guards (bench/store-guard-cost.ts). BENCH_RECALL_EMBEDDERS: comma-separated (default minilm,hash,use-lite);
 * BENCH_RECALL_SWEEP_IDENTIFIER and BENCH_RECALL_SWEEP_TEXT: the hybrid weights swept. BENCH_HNSW:
 * the cells index's build parameters (bench/hnsw-build.ts).
 */
import { SEARCH_MODES, type SearchMode } from '../src/core/cell-types.js';
import type { Principal } from '../src/core/principal.js';
import type { Embedder } from '../src/embed/embedder.js';
import { createMemoryFacade, type ManagedMemoryFacade } from '../src/service/index.js';
import { defaultHybridWeightsFor, defaultRestatementSimilarityFor, type HybridWeights } from '../src/service/facade-config.js';
import type { PgliteDb } from '../src/store/pglite-driver.js';
import { analyzeMemoryTables } from '../src/store/statistics-repository.js';
import { benchEmbedder } from './harness/embedders.js';
import { openEngine, QUIET_HITS } from './harness/engine.js';
import { applyBenchHnsw } from './harness/hnsw-build.js';
import { round } from './harness/measure.js';
import type { BenchRow, BenchSection } from './harness/section.js';
import { mergeConfusionRows } from './merge-confusion.js';
import { storeGuardCostRows } from './store-guard-cost.js';
import { RECALL_CATEGORIES, recallFixture, scoreRankings, type FixtureQuestion, type RankingScore, type RecallFixture } from './recall-fixture.js';

const K = 10;
const FUSION_DEPTH = 20;
const RRF_K = 60;
const WEIGHT_SWEEP: readonly HybridWeights[] = (process.env.BENCH_RECALL_SWEEP_IDENTIFIER ?? '0,0.1,0.2,0.3').split(',').map(Number).flatMap((identifier) => (process.env.BENCH_RECALL_SWEEP_TEXT ?? '0,0.05,0.1,0.2,0.5,1').split(',').map(Number).map((text) => ({ identifier, text })));

interface Loaded {
  readonly db: PgliteDb;
  readonly principal: Principal;
  /** Memory index of each stored cell. */
  readonly indexOf: ReadonlyMap<string, number>;
  readonly facades: ManagedMemoryFacade[];
}

/** The fixture's memories as cells of one project (similarity off, so every memory is a cell), statistics analysed. */
async function load(embedder: Embedder, fixture: RecallFixture): Promise<Loaded> {
  const engine = await openEngine(embedder, { prepare: applyBenchHnsw, config: { restatementSimilarity: null }, key: { default_project: 'fixture', projects: ['fixture'] } });
  const { db, facade, principal } = engine;
  const indexOf = new Map<string, number>();
  for (const [i, memory] of fixture.memories.entries()) {
    const stored = await facade.store(principal, { content: memory.content, cell_type: memory.cellType, salience: 0.5 });
    if (stored.reinforced) throw new Error(`recall fixture: memory ${i} reinforced another: ${memory.content}`);
    indexOf.set(stored.node_id, i);
  }
  await analyzeMemoryTables(db);
  return { db, principal, indexOf, facades: [facade] };
}

async function rankings(loaded: Loaded, facade: ManagedMemoryFacade, questions: readonly FixtureQuestion[], mode: SearchMode, k = K): Promise<number[][]> {
  const out: number[][] = [];
  for (const question of questions) {
    const { results } = await facade.recall(loaded.principal, { query: question.query, k, mode });
    out.push(results.map((hit) => loaded.indexOf.get(hit.node_id) ?? -1));
  }
  return out;
}

/** Reciprocal rank fusion of two rankings per question. */
function fuseRrf(a: readonly (readonly number[])[], b: readonly (readonly number[])[]): number[][] {
  return a.map((first, i) => {
    const score = new Map<number, number>();
    for (const ranking of [first, b[i] ?? []]) ranking.forEach((memory, rank) => score.set(memory, (score.get(memory) ?? 0) + 1 / (RRF_K + rank + 1)));
    return [...score.entries()]
      .sort((x, y) => y[1] - x[1])
      .slice(0, K)
      .map(([memory]) => memory);
  });
}

function byCategory(questions: readonly FixtureQuestion[], ranked: readonly (readonly number[])[]): string {
  return RECALL_CATEGORIES.map((category) => {
    const picked = questions.flatMap((q, i) => (q.category === category ? [i] : []));
    const score = scoreRankings(
      picked.map((i) => questions[i] as FixtureQuestion),
      picked.map((i) => ranked[i] ?? []),
    );
    return `${category} ${round(score.top1, 2)}/${round(score.top5, 2)}`;
  }).join(', ');
}

function qualityRow(label: string, score: RankingScore, vector: RankingScore, detail: string): BenchRow {
  return {
    metric: `${label}: top-1`,
    value: round(score.top1),
    unit: `of ${score.questions}`,
    baseline: round(vector.top1),
    ratio: round(score.top1 / vector.top1),
    note: `top-5 ${round(score.top5)} (vector ${round(vector.top5)}), MRR ${round(score.mrr)} (vector ${round(vector.mrr)}); top-1/top-5 by kind: ${detail}`,
  };
}

async function qualityRows(kind: string, fixture: RecallFixture, rows: BenchRow[]): Promise<void> {
  const embedder = benchEmbedder(kind, 'BENCH_RECALL_EMBEDDERS');
  const loaded = await load(embedder, fixture);
  try {
    const facade = loaded.facades[0] as ManagedMemoryFacade;
    const { questions } = fixture;
    const ranked = new Map<SearchMode, number[][]>();
    for (const mode of SEARCH_MODES) ranked.set(mode, await rankings(loaded, facade, questions, mode));
    const vector = scoreRankings(questions, ranked.get('vector') ?? []);
    const defaults = defaultHybridWeightsFor(embedder.modelId);
    for (const mode of SEARCH_MODES) {
      const r = ranked.get(mode) ?? [];
      const label = `${embedder.modelId} ${mode}${mode === 'hybrid' ? ` (identifier ${defaults.identifier}, text ${defaults.text})` : ''}`;
      rows.push(qualityRow(label, scoreRankings(questions, r), vector, byCategory(questions, r)));
    }
    const rrf = fuseRrf(await rankings(loaded, facade, questions, 'vector', FUSION_DEPTH), await rankings(loaded, facade, questions, 'lexical', FUSION_DEPTH));
    rows.push(qualityRow(`${embedder.modelId} reciprocal rank fusion (not chosen)`, scoreRankings(questions, rrf), vector, byCategory(questions, rrf)));
    const sweep: string[] = [];
    for (const weights of WEIGHT_SWEEP) {
      const swept = createMemoryFacade({ db: loaded.db, embedder, config: { ...QUIET_HITS, hybridWeights: weights } });
      loaded.facades.push(swept);
      const score = scoreRankings(questions, await rankings(loaded, swept, questions, 'hybrid'));
      sweep.push(`${weights.identifier}/${weights.text}: ${round(score.top1, 2)}/${round(score.top5, 2)}`);
    }
    rows.push({ metric: `${embedder.modelId} hybrid weight sweep`, value: WEIGHT_SWEEP.length, unit: 'settings', note: `identifier/text: top-1/top-5 — ${sweep.join('; ')}` });
    const similarity = defaultRestatementSimilarityFor(embedder.modelId);
    await mergeConfusionRows(loaded.db, embedder, similarity, rows);
    if (similarity !== null) await storeGuardCostRows(loaded.db, embedder, similarity, rows);
  } finally {
    for (const facade of loaded.facades) await facade.close();
    await loaded.db.close();
    await embedder.close();
  }
}

export async function runRecallBench(): Promise<BenchSection> {
  const kinds = (process.env.BENCH_RECALL_EMBEDDERS ?? 'minilm,hash,use-lite').split(',');
  const fixture = recallFixture();
  const rows: BenchRow[] = [
    { metric: 'fixture', value: fixture.questions.length, unit: 'questions', note: `${fixture.memories.length} memories; k ${K}; RRF depth ${FUSION_DEPTH}, k ${RRF_K}` },
  ];
  for (const kind of kinds) await qualityRows(kind, fixture, rows);
  return { name: 'recall quality per mode and embedder; merge confusion', rows };
}
