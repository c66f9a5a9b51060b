/**
 * Store cost of reinforcement's guards (issue 31, part of `npm run bench recall`): the merge-
 * confusion pairs stored through the facade, each pair in a tenant of its own, with near-duplicate
 * reinforcement at the embedder's similarity (nearest-cell lookup plus the number, negation,
 * subject and predicate guards) against identical-only reinforcement; each setting run twice,
 * alternating, the faster run kept (a reinforced store writes no cell, so this can be below 1×).
 * Beside it, the lexical guards alone per compared pair: what the stronger guard adds to a store.
 */
import { performance } from 'node:perf_hooks';
import type { Embedder } from '../src/embed/embedder.js';
import { createMemoryFacade } from '../src/service/index.js';
import { restatementContrast } from '../src/service/cells/restatement-contrast.js';
import type { Db } from '../src/store/db.js';
import type { BenchRow } from './harness/section.js';
import { PREDICATE_PAIRS } from './fixtures/merge-predicate-pairs.js';
import { SUBJECT_PAIRS } from './fixtures/recall-subject-pairs.js';
import { CONTRADICTION_PAIRS, DISTINCT_PAIRS, RESTATEMENT_PAIRS, type StatementPair } from './near-duplicate-fixture.js';

const PAIRS: readonly StatementPair[] = [...RESTATEMENT_PAIRS, ...DISTINCT_PAIRS, ...CONTRADICTION_PAIRS, ...PREDICATE_PAIRS, ...SUBJECT_PAIRS];
const GUARD_ROUNDS = 200;

/** Milliseconds per store of every pair, in fresh tenants named after `run`. */
async function storeMs(db: Db, embedder: Embedder, similarity: number | null, run: string): Promise<number> {
  const facade = createMemoryFacade({ db, embedder, config: { hitFlushIntervalMs: 3_600_000, restatementSimilarity: similarity } });
  try {
    let elapsed = 0;
    for (const [i, pair] of PAIRS.entries()) {
      const key = await facade.keyAdmin.createKey({ tenant: `guard-cost-${run}-${i}`, agent: 'a', default_project: 'p', projects: ['p'] });
      const principal = await facade.authenticate(key.key);
      const started = performance.now();
      await facade.store(principal, { content: pair.first, cell_type: 'Fact', salience: 0.5 });
      await facade.store(principal, { content: pair.second, cell_type: 'Fact', salience: 0.5 });
      elapsed += performance.now() - started;
    }
    return elapsed / (2 * PAIRS.length);
  } finally {
    await facade.close();
  }
}

/** Store cost rows for one embedder with a near-duplicate similarity, on a migrated database for it. */
export async function storeGuardCostRows(db: Db, embedder: Embedder, similarity: number, rows: BenchRow[]): Promise<void> {
  const [without, withGuards] = [[] as number[], [] as number[]];
  for (const round of [1, 2]) {
    without.push(await storeMs(db, embedder, null, `off-${round}`));
    withGuards.push(await storeMs(db, embedder, similarity, `on-${round}`));
  }
  const [off, on] = [Math.min(...without), Math.min(...withGuards)];
  const started = performance.now();
  for (let round = 0; round < GUARD_ROUNDS; round++) for (const pair of PAIRS) restatementContrast(pair.first, pair.second);
  const guardUs = ((performance.now() - started) * 1000) / (GUARD_ROUNDS * PAIRS.length);
  rows.push({
    metric: `${embedder.modelId}: store cost with near-duplicate reinforcement and its guards vs identical-only`,
    value: Math.round((on / off) * 100) / 100,
    unit: '×',
    note: `${on.toFixed(1)} ms vs ${off.toFixed(1)} ms per store over ${2 * PAIRS.length} stores; the lexical guards alone ${guardUs.toFixed(0)} µs per compared pair, ${((guardUs / 1000 / on) * 100).toFixed(1)}% of a store`,
  });
}
