/**
 * Explicit relations through the facade (docs/relations.md): declared at store time or added
 * afterwards, read back, deleted one at a time, bounded per cell, spelled as snake_case words
 * that are not the server's implicit edges; a target the caller cannot read — another tenant's,
 * another project's, deleted — is refused exactly as a random id is; a relation goes with either
 * of its cells. Runs on PGlite and on PostgreSQL over the wire (native PostgreSQL:
 * test/store/relations-native.test.ts).
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { createTestRuntime, TEST_DRIVERS, type TestRuntime } from '../support/test-runtime.js';
import { relationScenarios } from '../support/relation-scenarios.js';

describe.each(TEST_DRIVERS)('relations on %s', (driver) => {
  let rt: TestRuntime;
  beforeAll(async () => {
    rt = await createTestRuntime({ driver });
  });
  afterAll(async () => rt.close());
  relationScenarios(() => rt);
});
