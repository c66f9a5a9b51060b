/**
 * The canary scenarios of erasure (test/support/erasure-canary-scenarios.ts) on PGlite. No pg_dump
 * runs against PGlite here (@electric-sql/pglite-tools is not installed): the dump searched is
 * every row of every table written as text, as COPY would write it.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { erasureCanaryScenarios, rowDump } from '../support/erasure-canary-scenarios.js';
import type { ScenarioHarness } from '../support/scenario-harness.js';
import { createTestRuntime, type TestRuntime } from '../support/test-runtime.js';

describe('erasure reaches every copy on PGlite', { timeout: 120_000 }, () => {
  let rt: TestRuntime;
  let harness: ScenarioHarness;
  beforeAll(async () => {
    rt = await createTestRuntime({ driver: 'pglite' });
    harness = { facade: rt.facade, db: rt.db, principal: (spec) => rt.principal(spec) };
  });
  afterAll(async () => rt.close());

  erasureCanaryScenarios(() => harness, { dump: () => rowDump(rt.db) });
});
