/**
 * Recall quality fixture (issue 31): an engineering team's memories and questions that ask for one
 * of them, in four kinds — paraphrases worded apart from their memory, identifiers (error codes,
 * ticket ids, paths, versions, code names) beside near misses naming another identifier, near-miss
 * questions that share their words with a memory that does not answer them, and pairs of memories
 * that differ only in their subject. bench/recall-bench.ts stores every memory in one project and
 * scores each recall mode by where each question's memory ranks (top-1, top-5, MRR).
 * Written for Hyphae; not taken from any public data set.
 */
import type { CellType } from '../src/core/cell-types.js';
import { BACKGROUND_MEMORIES } from './fixtures/recall-background-memories.js';
import { DISTRACTOR_CASES } from './fixtures/recall-distractor-cases.js';
import { IDENTIFIER_CASES } from './fixtures/recall-identifier-cases.js';
import { PARAPHRASE_CASES } from './fixtures/recall-paraphrase-cases.js';
import { SUBJECT_PAIRS } from './fixtures/recall-subject-pairs.js';

export const RECALL_CATEGORIES = ['paraphrase', 'identifier', 'distractor', 'subject'] as const;
export type RecallCategory = (typeof RECALL_CATEGORIES)[number];

/** One question, the memory that answers it, and memories that must rank below it. */
export interface RecallCase {
  readonly category: RecallCategory;
  readonly cellType: CellType;
  readonly memory: string;
  readonly question: string;
  readonly distractors?: readonly string[];
}

export interface FixtureMemory {
  readonly content: string;
  readonly cellType: CellType;
}

export interface FixtureQuestion {
  readonly category: RecallCategory;
  readonly query: string;
  /** Index into `memories` of the memory that answers it. */
  readonly answer: number;
}

export interface RecallFixture {
  readonly memories: readonly FixtureMemory[];
  readonly questions: readonly FixtureQuestion[];
}

function subjectCases(): RecallCase[] {
  return SUBJECT_PAIRS.flatMap((pair) => [
    { category: 'subject', cellType: pair.cellType, memory: pair.first, question: pair.firstQuestion, distractors: [pair.second] },
    { category: 'subject', cellType: pair.cellType, memory: pair.second, question: pair.secondQuestion, distractors: [pair.first] },
  ]);
}

/** Every memory once (a subject pair's memories are each other's distractors), questions pointing at them. */
export function recallFixture(): RecallFixture {
  const memories: FixtureMemory[] = [];
  const indexOf = new Map<string, number>();
  const add = (content: string, cellType: CellType): number => {
    const known = indexOf.get(content);
    if (known !== undefined) return known;
    indexOf.set(content, memories.length);
    memories.push({ content, cellType });
    return memories.length - 1;
  };
  const cases = [...PARAPHRASE_CASES, ...IDENTIFIER_CASES, ...DISTRACTOR_CASES, ...subjectCases()];
  const questions = cases.map((c) => {
    const answer = add(c.memory, c.cellType);
    for (const distractor of c.distractors ?? []) add(distractor, c.cellType);
    return { category: c.category, query: c.question, answer };
  });
  for (const memory of BACKGROUND_MEMORIES) {
    if (indexOf.has(memory.content)) throw new Error(`recall fixture: background memory repeated: ${memory.content}`);
    add(memory.content, memory.cellType);
  }
  return { memories, questions };
}

export interface RankingScore {
  readonly questions: number;
  /** Fraction of questions whose memory is ranked first. */
  readonly top1: number;
  /** Fraction whose memory is among the first five. */
  readonly top5: number;
  /** Mean reciprocal rank of the memory within the returned list (0 when it is not returned). */
  readonly mrr: number;
}

/** Scores rankings (memory indices, best first) of the given questions. */
export function scoreRankings(questions: readonly FixtureQuestion[], rankings: readonly (readonly number[])[]): RankingScore {
  let top1 = 0;
  let top5 = 0;
  let reciprocal = 0;
  questions.forEach((question, i) => {
    const rank = (rankings[i] ?? []).indexOf(question.answer);
    if (rank === 0) top1 += 1;
    if (rank >= 0 && rank < 5) top5 += 1;
    if (rank >= 0) reciprocal += 1 / (rank + 1);
  });
  const n = questions.length;
  return { questions: n, top1: top1 / n, top5: top5 / n, mrr: reciprocal / n };
}
