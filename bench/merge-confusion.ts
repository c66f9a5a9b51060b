/**
 * Merge confusion of reinforcement (issue 31, part of `npm run bench recall`): each pair stored
 * through the facade at the embedder's default similarity, the first statement then the second, in a
 * tenant of its own; a pair merged when the second store reinforced the first. Beside it, what the
 * number/negation guard alone (the guard before issue 31), and the guards without the predicate one,
 * would have decided at the same similarity.
 */
import type { Embedder } from '../src/embed/embedder.js';
import { createMemoryFacade } from '../src/service/index.js';
import { restatementContrast } from '../src/service/cells/restatement-contrast.js';
import type { Db } from '../src/store/db.js';
import type { BenchRow } from './harness/section.js';
import { PREDICATE_PAIRS } from './fixtures/merge-predicate-pairs.js';
import { IDENTIFIER_CASES } from './fixtures/recall-identifier-cases.js';
import { SUBJECT_PAIRS } from './fixtures/recall-subject-pairs.js';
import { CONTRADICTION_PAIRS, DISTINCT_PAIRS, RESTATEMENT_PAIRS, type StatementPair } from './near-duplicate-fixture.js';

interface PairGroup {
  readonly name: string;
  readonly pairs: readonly StatementPair[];
  /** Whether its pairs should merge. */
  readonly merge: boolean;
}

/** The same statement again with its case, spacing and closing punctuation changed. */
function identicalRestatement(text: string): string {
  return `  ${text.toUpperCase().replace(/\.$/, '')}  `.replace(/ /g, '  ');
}

const GROUPS: readonly PairGroup[] = [
  { name: 'restatements', pairs: RESTATEMENT_PAIRS, merge: true },
  { name: 'identical restatements', pairs: RESTATEMENT_PAIRS.slice(0, 20).map((p) => ({ first: p.first, second: identicalRestatement(p.first) })), merge: true },
  { name: 'distinct statements, same subject', pairs: DISTINCT_PAIRS, merge: false },
  { name: 'contradictions', pairs: CONTRADICTION_PAIRS, merge: false },
  { name: 'another claim, same subject', pairs: PREDICATE_PAIRS, merge: false },
  { name: 'another subject', pairs: SUBJECT_PAIRS.map((p) => ({ first: p.first, second: p.second })), merge: false },
  { name: 'another identifier', pairs: IDENTIFIER_CASES.map((c) => ({ first: c.memory, second: c.distractors?.[0] ?? c.memory })), merge: false },
];

async function cosine(embedder: Embedder, a: string, b: string): Promise<number> {
  const [[x], [y]] = [await embedder.embed([a]), await embedder.embed([b])];
  let dot = 0;
  for (let i = 0; i < (x as Float32Array).length; i++) dot += ((x as Float32Array)[i] ?? 0) * ((y as Float32Array)[i] ?? 0);
  return dot;
}

/** Confusion rows for one embedder, on a migrated database for it. */
export async function mergeConfusionRows(db: Db, embedder: Embedder, similarity: number | null, rows: BenchRow[]): Promise<void> {
  const facade = createMemoryFacade({ db, embedder, config: { hitFlushIntervalMs: 3_600_000, restatementSimilarity: similarity } });
  let tenant = 0;
  try {
    for (const group of GROUPS) {
      let merged = 0;
      let mergedBefore = 0;
      let mergedWithoutPredicate = 0;
      for (const pair of group.pairs) {
        tenant += 1;
        const key = await facade.keyAdmin.createKey({ tenant: `merge-${tenant}`, agent: 'a', default_project: 'p', projects: ['p'] });
        const principal = await facade.authenticate(key.key);
        await facade.store(principal, { content: pair.first, cell_type: 'Fact', salience: 0.5 });
        const { reinforced } = await facade.store(principal, { content: pair.second, cell_type: 'Fact', salience: 0.5 });
        if (reinforced) merged += 1;
        const contrast = restatementContrast(pair.first, pair.second);
        const close = similarity !== null && (await cosine(embedder, pair.first, pair.second)) >= similarity;
        if (close && contrast !== 'number' && contrast !== 'negation') mergedBefore += 1;
        if (reinforced || (close && contrast === 'predicate')) mergedWithoutPredicate += 1;
      }
      const n = group.pairs.length;
      const [right, rightBefore, rightWithoutPredicate] = group.merge ? [merged, mergedBefore, mergedWithoutPredicate] : [n - merged, n - mergedBefore, n - mergedWithoutPredicate];
      rows.push({
        metric: `${embedder.modelId} @ ${similarity ?? 'identical only'}: ${group.name} ${group.merge ? 'merged' : 'kept apart'}`,
        value: right,
        unit: `of ${n}`,
        note: `${group.merge ? 'TP' : 'TN'} ${right}, ${group.merge ? 'FN' : 'FP'} ${n - right}; without the predicate guard: ${rightWithoutPredicate} of ${n}; the number/negation guard alone: ${rightBefore} of ${n}`,
      });
    }
  } finally {
    await facade.close();
  }
}
