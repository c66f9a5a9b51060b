/**
 * The learning experiment's fixture (bench/learning-bench.ts, docs/feedback-learning.md): 100
 * questions, each with the memory that answers it, two near misses that share its words and answer
 * something else, and four paraphrases of the question — 300 memories in all. Written for Hyphae.
 */
import { LEARNING_CASES_A } from './fixtures/learning-cases-a.js';
import { LEARNING_CASES_B } from './fixtures/learning-cases-b.js';

export interface LearningCase {
  readonly answer: string;
  readonly nearMisses: readonly string[];
  readonly paraphrases: readonly string[];
}

export interface LearningFixture {
  readonly cases: readonly LearningCase[];
  /** Every memory once: each case's answer, then its near misses. */
  readonly memories: readonly string[];
  /** The index in memories of each case's answer and near misses. */
  readonly answerOf: readonly number[];
  readonly nearMissesOf: readonly (readonly number[])[];
}

/** The fixture, checked: at least 100 questions of at least 3 paraphrases over at least 300 distinct memories. */
export function learningFixture(): LearningFixture {
  const cases = [...LEARNING_CASES_A, ...LEARNING_CASES_B];
  const memories: string[] = [];
  const answerOf: number[] = [];
  const nearMissesOf: number[][] = [];
  for (const c of cases) {
    if (c.paraphrases.length < 3 || c.nearMisses.length === 0) throw new Error(`learning fixture: too few paraphrases or near misses for ${c.answer}`);
    answerOf.push(memories.push(c.answer) - 1);
    nearMissesOf.push(c.nearMisses.map((m) => memories.push(m) - 1));
  }
  if (new Set(memories).size !== memories.length) throw new Error('learning fixture: a memory appears twice');
  if (cases.length < 100 || memories.length < 300) throw new Error(`learning fixture: ${cases.length} questions over ${memories.length} memories`);
  return { cases, memories, answerOf, nearMissesOf };
}
