/** The feedback scenarios (test/support/feedback-scenarios.ts) on native PostgreSQL 18 with pgvector. */
import { afterAll, beforeAll, describe } from 'vitest';
import { skipWithoutPostgres } from '../support/real-postgres.js';
import { feedbackScenarios } from '../support/feedback-scenarios.js';
import { startNativeHarness, type NativeHarness } from './native-harness.js';

describe.skipIf(skipWithoutPostgres())('feedback on native PostgreSQL', { timeout: 180_000 }, () => {
  let native: NativeHarness;

  beforeAll(async () => {
    native = await startNativeHarness();
  }, 180_000);
  afterAll(async () => native?.close());

  feedbackScenarios(() => native.harness);
});
