/**
 * The canary scenarios of erasure (test/support/erasure-canary-scenarios.ts) on native PostgreSQL
 * 18 with pgvector, the dump searched being pg_dump's of the whole database (data and schema).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { erasureCanaryScenarios } from '../support/erasure-canary-scenarios.js';
import { findPostgresRoot, skipWithoutPostgres } from '../support/real-postgres.js';
import { startNativeHarness, type NativeHarness } from './native-harness.js';

describe.skipIf(skipWithoutPostgres())('erasure reaches every copy on native PostgreSQL', { timeout: 180_000 }, () => {
  let native: NativeHarness;

  beforeAll(async () => {
    native = await startNativeHarness();
  }, 180_000);
  afterAll(async () => native?.close());

  const pgDump = async (): Promise<string> => {
    const dumped = spawnSync(join(findPostgresRoot() ?? '', 'bin', 'pg_dump'), ['--dbname', native.url, '--no-owner'], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    if (dumped.status !== 0) throw new Error(`pg_dump failed: ${dumped.stderr}`);
    return dumped.stdout;
  };

  erasureCanaryScenarios(() => native.harness, { dump: pgDump });
});
