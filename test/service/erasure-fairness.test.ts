/** Erasure under steady writes on PGlite, one connection shared in turns (test/support/erasure-fairness-scenario.ts). */
import { afterAll, beforeAll, describe } from 'vitest';
import { erasureFairnessScenario } from '../support/erasure-fairness-scenario.js';
import { createTestRuntime, type TestRuntime } from '../support/test-runtime.js';

describe('erasure under steady writes on PGlite', () => {
  let rt: TestRuntime;
  beforeAll(async () => {
    rt = await createTestRuntime({ driver: 'pglite' });
  });
  afterAll(async () => rt?.close());

  erasureFairnessScenario(() => rt);
});
