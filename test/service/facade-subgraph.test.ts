/**
 * Subgraphs through the facade (docs/relations.md): every implicit edge kind appears in a subgraph
 * built from a real sequence of calls (a session and its scene, a supersession, a restatement, a
 * promotion, a document's chunks, a conversation); breadth-first order, depth, discovered_via and
 * truncated are exact on a graph with a cycle; a member in a project the caller cannot read is
 * absent and the path through it is cut; the bounds are INVALID_ARGUMENT naming the limit. Runs on
 * PGlite and on PostgreSQL over the wire (native PostgreSQL: test/store/relations-native.test.ts).
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { createTestRuntime, TEST_DRIVERS, type TestRuntime } from '../support/test-runtime.js';
import { subgraphScenarios } from '../support/subgraph-scenarios.js';

describe.each(TEST_DRIVERS)('subgraph on %s', (driver) => {
  let rt: TestRuntime;
  beforeAll(async () => {
    rt = await createTestRuntime({ driver });
  });
  afterAll(async () => rt.close());
  subgraphScenarios(() => rt);
});
