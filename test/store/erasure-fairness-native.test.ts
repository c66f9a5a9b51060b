/** Erasure under steady writes on native PostgreSQL 18: a pool, row locks on the shared inbox (test/support/erasure-fairness-scenario.ts). */
import { afterAll, beforeAll, describe } from 'vitest';
import { erasureFairnessScenario } from '../support/erasure-fairness-scenario.js';
import { skipWithoutPostgres } from '../support/real-postgres.js';
import { startNativeHarness, type NativeHarness } from './native-harness.js';

describe.skipIf(skipWithoutPostgres())('erasure under steady writes on native PostgreSQL', () => {
  let native: NativeHarness;
  beforeAll(async () => {
    native = await startNativeHarness();
  }, 180_000);
  afterAll(async () => native?.close());

  erasureFairnessScenario(() => native.harness);
});
