/**
 * The recall log and feedback (docs/feedback.md), `npm run bench feedback`: the hash embedder over
 * embedded PGlite, BENCH_FEEDBACK_CELLS cells (default 2,000; `BENCH_SCALE=small` 300). Paired
 * rounds (harness/alternate.ts) of three sides: recall p50 through the facade (which writes its log
 * row), the log row's INSERT alone, and a feedback write with ground truth. The INSERT's ratio to
 * recall is the share of recall the log costs; the feedback write is shown beside recall.
 */
import { randomUUID } from 'node:crypto';
import type { BenchRow, BenchSection } from './harness/section.js';
import { insertRecallRequest } from '../src/store/recall-log-repository.js';
import { toVectorParam } from '../src/store/vector-param.js';
import { alternate } from './harness/alternate.js';
import { syntheticCorpus } from './corpus.js';
import { benchEmbedder } from './harness/embedders.js';
import { openEngine } from './harness/engine.js';
import { elapsedMs, round, summarise } from './harness/measure.js';

const PER_ROUND = 20;

function sizes(): { cells: number; rounds: number } {
  if (process.env.BENCH_SCALE === 'small') return { cells: 300, rounds: 5 };
  return { cells: Number(process.env.BENCH_FEEDBACK_CELLS ?? 2_000), rounds: 15 };
}

export async function runFeedbackBench(): Promise<BenchSection> {
  const { cells, rounds } = sizes();
  const embedder = benchEmbedder('hash');
  const engine = await openEngine(embedder);
  try {
    const { facade, principal, db } = engine;
    const corpus = syntheticCorpus(cells, 46);
    for (const content of corpus) await facade.store(principal, { content, cell_type: 'Fact', salience: 0.5 });
    const questions = syntheticCorpus(cells + 200, 46).slice(cells);
    const answers: { requestId: string; truth: string }[] = [];
    const [vector] = await embedder.embed(['a recall log row']);
    const row = toVectorParam(vector ?? [1]);
    let next = 0;
    const question = (): string => questions[next++ % questions.length] ?? 'question';
    const timings = await alternate(
      {
        recall: () =>
          timedBatch(async () => {
            const answer = await facade.recall(principal, { query: question(), k: 10 });
            const truth = answer.results[3]?.node_id;
            if (truth !== undefined) answers.push({ requestId: answer.request_id, truth });
          }),
        'log insert': () =>
          timedBatch(() =>
            insertRecallRequest(db, {
              tenantId: principal.tenantId,
              requestId: randomUUID(),
              agent: principal.agent,
              human: false,
              operation: 'recall',
              projects: [principal.defaultProject],
              queryText: 'a recall log row',
              querySha256: '0'.repeat(64),
              queryEmbedding: row,
              embeddingModel: embedder.modelId,
              arguments: { k: 10 },
              resultIds: [],
              createdAt: new Date(),
            }),
          ),
        feedback: () =>
          timedBatch(async () => {
            const judged = answers.pop();
            if (judged === undefined) return;
            await facade.submitFeedback(principal, { request_id: judged.requestId, rating: 'negative', feedback: 'the fourth hit held it', ground_truth_ids: [judged.truth] });
          }),
      },
      rounds,
      { warmup: 1 },
    );
    const recall = summarise(timings.recall.flat());
    const insert = summarise(timings['log insert'].flat());
    const feedback = summarise(timings.feedback.flat());
    const rows: BenchRow[] = [
      { metric: 'recall p50 (the log row written)', value: round(recall.p50), unit: 'ms', note: `${cells} cells, hash embedder, k 10` },
      { metric: 'recall log INSERT p50', value: round(insert.p50), unit: 'ms', baseline: round(recall.p50), ratio: round(insert.p50 / recall.p50), note: 'its share of a recall' },
      { metric: 'feedback write p50', value: round(feedback.p50), unit: 'ms', baseline: round(recall.p50), ratio: round(feedback.p50 / recall.p50), note: 'rating, text and one ground-truth cell; against a recall' },
    ];
    return { name: 'feedback', rows };
  } finally {
    await engine.close();
  }
}

/** PER_ROUND calls of `run`, each timed. */
async function timedBatch(run: () => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < PER_ROUND; i += 1) samples.push(await elapsedMs(run));
  return samples;
}
