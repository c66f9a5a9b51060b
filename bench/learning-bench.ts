/**
 * Learning from ground truth (issue 46), `npm run bench learning`: bench/learning-fixture.ts stored
 * through the facade (embedded PGlite), then ground truth sent on the first paraphrase of every other
 * question; top-1 and MRR (k 10) of the true memory on the held-out paraphrases of the judged
 * questions and on every paraphrase of the others (the control: what evidence for other cells costs
 * them), before and after, per embedder and mode, at the sender trusts 0.5 (a key's default) and 1.
 * Then the adversarial run, in a tenant of its own: a trust-0.2 agent names a near miss as the truth
 * of the same questions; what it moves (top-1 taken by its false cell) with and without min_trust,
 * against a trust-0.5 agent's true ground truth, and in the other tenant. docs/feedback-learning.md.
 * Then what learning costs recall (bench/learning-cost.ts; BENCH_LEARNING_DB). BENCH_LEARNING_EMBEDDERS: comma-separated (default minilm,hash,use-lite; empty: the cost alone).
 */
import type { SearchMode } from '../src/core/cell-types.js';
import type { Principal } from '../src/core/principal.js';
import type { Embedder } from '../src/embed/embedder.js';
import { createEvidenceLearner } from '../src/service/feedback/evidence-learner.js';
import type { FeedbackLearner } from '../src/service/feedback/feedback-learner.js';
import { createMemoryFacade, type ManagedMemoryFacade } from '../src/service/index.js';
import { benchEmbedder } from './harness/embedders.js';
import { openEngine, QUIET_HITS, type BenchEngine } from './harness/engine.js';
import { round } from './harness/measure.js';
import type { BenchRow, BenchSection } from './harness/section.js';
import { learningCostRows } from './learning-cost.js';
import { learningFixture, type LearningFixture } from './learning-fixture.js';

const K = 10;
const MODES: readonly SearchMode[] = ['vector', 'hybrid'];

/** One recall to score: its text, the memory that answers it, and a memory it must not be answered with. */
interface Probe {
  readonly query: string;
  readonly truth: number;
  readonly falseTruth: number;
}

interface Score {
  readonly top1: number;
  readonly mrr: number;
  /** Probes whose first hit is their false truth. */
  readonly falseTop1: number;
  /** The ranked memory indexes, per probe, to compare rankings. */
  readonly rankings: readonly string[];
}

interface Tenant {
  readonly principal: Principal;
  readonly indexOf: ReadonlyMap<string, number>;
  readonly idOf: readonly string[];
}

interface Run {
  readonly engine: BenchEngine;
  readonly plain: ManagedMemoryFacade;
  readonly learner: FeedbackLearner;
  readonly embedder: Embedder;
}

async function storeFixture(run: Run, fixture: LearningFixture, tenant: string): Promise<Tenant> {
  const key = await run.engine.facade.keyAdmin.createKey({ tenant, agent: 'author', default_project: 'fixture', projects: ['fixture'] });
  const principal = await run.engine.facade.authenticate(key.key);
  const idOf: string[] = [];
  for (const content of fixture.memories) idOf.push((await run.engine.facade.store(principal, { content, cell_type: 'Fact', salience: 0.5 })).node_id);
  return { principal, indexOf: new Map(idOf.map((id, i) => [id, i])), idOf };
}

async function score(facade: ManagedMemoryFacade, tenant: Tenant, probes: readonly Probe[], mode: SearchMode, minTrust?: number): Promise<Score> {
  let top1 = 0;
  let mrr = 0;
  let falseTop1 = 0;
  const rankings: string[] = [];
  for (const probe of probes) {
    const { results } = await facade.recall(tenant.principal, { query: probe.query, k: K, mode, ...(minTrust === undefined ? {} : { min_trust: minTrust }) });
    const ranked = results.map((hit) => tenant.indexOf.get(hit.node_id) ?? -1);
    const rank = ranked.indexOf(probe.truth);
    if (rank === 0) top1 += 1;
    if (rank >= 0) mrr += 1 / (rank + 1);
    if (ranked[0] === probe.falseTruth) falseTop1 += 1;
    rankings.push(JSON.stringify(results.map((hit) => [tenant.indexOf.get(hit.node_id), hit.score])));
  }
  return { top1, mrr: mrr / probes.length, falseTop1, rankings };
}

/** Ground truth on `query` naming `truth`, from a sender of tenant's with `trust`. */
async function judge(run: Run, tenant: Tenant, sender: { agent: string; trust: number }, requestId: string, query: string, truth: number): Promise<void> {
  const [vector] = await run.embedder.embed([query]);
  await run.learner.learn({
    tenantId: tenant.principal.tenantId,
    project: 'fixture',
    feedbackId: requestId,
    requestId,
    queryEmbedding: Array.from(vector ?? []),
    embeddingModel: run.embedder.modelId,
    queryText: query,
    truthCellIds: [tenant.idOf[truth] ?? ''],
    agentId: sender.agent,
    label: 'agent',
    senderTrust: sender.trust,
  });
}

const changed = (a: Score, b: Score): number => a.rankings.filter((r, i) => r !== b.rankings[i]).length;

function row(metric: string, after: Score, before: Score, probes: number, note = ''): BenchRow {
  return {
    metric,
    value: after.top1,
    unit: `top-1 of ${probes}`,
    baseline: before.top1,
    ratio: round(after.top1 / Math.max(1, before.top1)),
    note: `MRR ${round(after.mrr)} (before ${round(before.mrr)})${note}`,
  };
}

async function embedderRows(kind: string, fixture: LearningFixture, rows: BenchRow[]): Promise<void> {
  const embedder = benchEmbedder(kind, 'BENCH_LEARNING_EMBEDDERS');
  const engine = await openEngine(embedder, { config: { restatementSimilarity: null, feedbackLearning: true } });
  const plain = createMemoryFacade({ db: engine.db, embedder, config: { ...QUIET_HITS, restatementSimilarity: null, feedbackLearning: false } });
  const run: Run = { engine, plain, embedder, learner: createEvidenceLearner({ db: engine.db, clock: () => new Date(), embeddingModel: embedder.modelId, enabled: true }) };
  try {
    const model = embedder.modelId;
    const judged = fixture.cases.flatMap((c, i) => (i % 2 === 0 ? [i] : []));
    const control = fixture.cases.flatMap((c, i) => (i % 2 === 1 ? [i] : []));
    const probe = (i: number, query: string): Probe => ({ query, truth: fixture.answerOf[i] ?? -1, falseTruth: fixture.nearMissesOf[i]?.[0] ?? -1 });
    const heldOut = judged.flatMap((i) => (fixture.cases[i]?.paraphrases.slice(1) ?? []).map((q) => probe(i, q)));
    const seen = judged.map((i) => probe(i, fixture.cases[i]?.paraphrases[0] ?? ''));
    const others = control.flatMap((i) => (fixture.cases[i]?.paraphrases ?? []).map((q) => probe(i, q)));
    type Sets = 'heldOut' | 'seen' | 'others';
    const measure = async (facade: ManagedMemoryFacade, tenant: Tenant, mode: SearchMode): Promise<Record<Sets, Score>> => ({
      heldOut: await score(facade, tenant, heldOut, mode),
      seen: await score(facade, tenant, seen, mode),
      others: await score(facade, tenant, others, mode),
    });

    const honest = await storeFixture(run, fixture, 'honest');
    const before = new Map<SearchMode, Record<Sets, Score>>();
    for (const mode of MODES) before.set(mode, await measure(plain, honest, mode));
    for (const trust of [0.5, 1]) {
      for (const i of judged) await judge(run, honest, { agent: `judge-${trust}`, trust }, `req-${trust}-${i}`, fixture.cases[i]?.paraphrases[0] ?? '', fixture.answerOf[i] ?? -1);
      for (const mode of MODES) {
        const was = before.get(mode) as Record<Sets, Score>;
        const now = await measure(engine.facade, honest, mode);
        const label = `${model} ${mode}, sender trust ${trust}`;
        rows.push(row(`${label}: held-out paraphrases of judged questions`, now.heldOut, was.heldOut, heldOut.length));
        rows.push(row(`${label}: the judged paraphrase itself`, now.seen, was.seen, seen.length));
        rows.push(row(`${label}: paraphrases of questions not judged (control)`, now.others, was.others, others.length, `; rankings changed ${changed(now.others, was.others)} of ${others.length}`));
      }
    }

    // The adversary: a trust-0.2 agent names each judged question's first near miss as its truth, in a tenant of its own.
    const attacked = await storeFixture(run, fixture, 'attacked');
    const honestBefore = await score(engine.facade, honest, heldOut, 'hybrid');
    const clean = new Map<SearchMode, Score>();
    for (const mode of MODES) clean.set(mode, await score(plain, attacked, heldOut, mode));
    const cleanAbove = await score(plain, attacked, heldOut, 'hybrid', 0.5);
    for (const i of judged) await judge(run, attacked, { agent: 'adversary', trust: 0.2 }, `adv-${i}`, fixture.cases[i]?.paraphrases[0] ?? '', fixture.nearMissesOf[i]?.[0] ?? -1);
    for (const mode of MODES) {
      const was = clean.get(mode) as Score;
      const now = await score(engine.facade, attacked, heldOut, mode);
      rows.push(row(`${model} ${mode}, false ground truth from trust 0.2: held-out paraphrases`, now, was, heldOut.length, `; first hit is the false cell ${now.falseTop1} (before ${was.falseTop1}); rankings changed ${changed(now, was)}`));
    }
    const above = await score(engine.facade, attacked, heldOut, 'hybrid', 0.5);
    rows.push(row(`${model} hybrid, false ground truth from trust 0.2, recall with min_trust 0.5`, above, cleanAbove, heldOut.length, `; rankings changed ${changed(above, cleanAbove)} of ${heldOut.length}`));
    rows.push({ metric: `${model} hybrid, false ground truth in another tenant: rankings changed here`, value: changed(await score(engine.facade, honest, heldOut, 'hybrid'), honestBefore), unit: `of ${heldOut.length}` });
    for (const i of judged) await judge(run, attacked, { agent: 'honest', trust: 0.5 }, `fix-${i}`, fixture.cases[i]?.paraphrases[0] ?? '', fixture.answerOf[i] ?? -1);
    for (const mode of MODES) {
      const was = clean.get(mode) as Score;
      const now = await score(engine.facade, attacked, heldOut, mode);
      rows.push(row(`${model} ${mode}, then true ground truth from trust 0.5`, now, was, heldOut.length, `; first hit is the false cell ${now.falseTop1}`));
    }
  } finally {
    await plain.close();
    await engine.close();
    await embedder.close();
  }
}

export async function runLearningBench(): Promise<BenchSection> {
  const fixture = learningFixture();
  const kinds = (process.env.BENCH_LEARNING_EMBEDDERS ?? 'minilm,hash,use-lite').split(',');
  const rows: BenchRow[] = [
    { metric: 'fixture', value: fixture.cases.length, unit: 'questions', note: `${fixture.memories.length} memories (answers and near misses); 4 paraphrases each; ground truth on the first paraphrase of every other question; k ${K}` },
  ];
  for (const kind of kinds.filter((k) => k !== '')) await embedderRows(kind, fixture, rows);
  await learningCostRows(rows);
  return { name: 'learning from ground truth: top-1 before and after, per embedder and mode; the adversary', rows };
}
