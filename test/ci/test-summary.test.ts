/**
 * CI's closing line (scripts/test-summary.mjs) from a real Vitest JSON report: a fixture tier with
 * one file that loads (a pass and a skip), one with a failing test, and one that throws at load, as a
 * test file does when a binary it requires is missing under HYPHAE_TEST_REQUIRE=all.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURES = join(ROOT, 'test', 'ci', 'fixtures');
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const SUMMARY = join(ROOT, 'scripts', 'test-summary.mjs');

describe('the closing line of .ci/run', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hyphae-summary-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('counts a test file that fails at load as failed, not skipped, and names every failed test', async () => {
    const report = join(dir, 'report.json');
    const env = { ...process.env, CI: 'true' };
    const tier = await run(
      process.execPath,
      [VITEST, 'run', '--root', FIXTURES, '--config', 'vitest.fixture.config.ts', '--reporter=json', `--outputFile.json=${report}`],
      { cwd: FIXTURES, env },
    ).then(
      () => ({ code: 0 }),
      (error: { code?: number }) => ({ code: error.code }),
    );
    expect(tier.code).toBe(1);
    const summary = await run(process.execPath, [SUMMARY, report]);
    expect(summary.stdout.trim()).toBe('1 passed, 2 failed, 1 skipped');
    expect(summary.stderr).toContain('throws.check.ts');
    // The tail of a CI log is often all that is kept: it names the failed test and its first error line.
    expect(summary.stderr).toMatch(/failed: \S*fails\.check\.ts > a tier with a failing test compares two numbers: AssertionError: expected 2 to be 3/);
    // CI sums the suite's report and the Node 24 product tier's; one that never appeared is a failure.
    const both = await run(process.execPath, [SUMMARY, report, join(dir, 'never-written.json')]);
    expect(both.stdout.trim()).toBe('1 passed, 3 failed, 1 skipped');
  });

  it('reports a missing report (the runner crashed) as a failure', async () => {
    const summary = await run(process.execPath, [SUMMARY, join(dir, 'absent.json')]);
    expect(summary.stdout.trim()).toBe('0 passed, 1 failed');
  });
});
