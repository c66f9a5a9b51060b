/**
 * The relation and subgraph scenarios (test/support/relation-scenarios.ts, subgraph-scenarios.ts)
 * on native PostgreSQL 18 with pgvector: the subgraph's recursive statement, the relations'
 * foreign keys and the advisory lock of an addition as a real server runs them.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { skipWithoutPostgres } from '../support/real-postgres.js';
import { relationScenarios } from '../support/relation-scenarios.js';
import { subgraphScenarios } from '../support/subgraph-scenarios.js';
import { startNativeHarness, type NativeHarness } from './native-harness.js';

describe.skipIf(skipWithoutPostgres())('relations and subgraphs on native PostgreSQL', { timeout: 180_000 }, () => {
  let native: NativeHarness;

  beforeAll(async () => {
    native = await startNativeHarness();
  }, 180_000);
  afterAll(async () => native?.close());

  describe('relations', () => relationScenarios(() => native.harness));
  describe('subgraph', () => subgraphScenarios(() => native.harness));
});
