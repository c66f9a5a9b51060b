import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syntheticCorpus } from '../../bench/corpus.js';
import { createTestRuntime, type TestRuntime } from '../support/test-runtime.js';
import { freshTenant } from '../support/facade-expectations.js';

// The memory and the question share no content word: only a model of meaning connects them.
const MEMORY = 'Steps to recover a forgotten login credential: open the account page and request a reset link.';
const QUESTION = 'How do I reset my password?';

async function rankOfMemory(rt: TestRuntime): Promise<number> {
  const p = await rt.principal({ tenant: freshTenant(), agent: 'a' });
  const target = await rt.facade.store(p, { content: MEMORY, cell_type: 'Fact', salience: 0.5 });
  for (const content of syntheticCorpus(60, 11)) await rt.facade.store(p, { content, cell_type: 'Fact', salience: 0.5 });
  // By the vectors alone (hybrid recall would add the one word they share, "reset").
  const { results } = await rt.facade.recall(p, { query: QUESTION, k: 5, mode: 'vector' });
  return results.findIndex((r) => r.node_id === target.node_id);
}

describe('a paraphrase recalled end to end: use-lite finds it, hash misses it', () => {
  let useLite: TestRuntime;
  let hash: TestRuntime;

  beforeAll(async () => {
    [useLite, hash] = await Promise.all([createTestRuntime({ embedder: 'use-lite' }), createTestRuntime({ embedder: 'hash' })]);
  });
  afterAll(async () => Promise.all([useLite.close(), hash.close()]));

  it('use-lite recalls the paraphrased memory first among 60 engineering memories', async () => {
    expect(await rankOfMemory(useLite)).toBe(0);
  });

  it('hash, which only matches shared words, does not rank it first', async () => {
    expect(await rankOfMemory(hash)).not.toBe(0);
  });
});
