/**
 * `npm test` on a machine that lacks a tier's binary ends naming the tier, what it lacked, how many
 * tests it skipped and the one command that provisions it; under HYPHAE_TEST_REQUIRE=all (CI) the
 * absence fails the run instead. A real Vitest run over a fixture tier with the suite's reporter.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURES = join(ROOT, 'test', 'ci', 'fixtures', 'tiers');
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');

function runFixtureTier(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [VITEST, 'run', '--root', FIXTURES, '--config', 'vitest.tiers.config.ts'], { cwd: FIXTURES, env }, (error, stdout) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout }),
    );
  });
}

describe('the skipped-tier summary', () => {
  it('ends a run that skipped a tier with the tier, its count, what it lacked and npm run test:setup', async () => {
    const { HYPHAE_TEST_REQUIRE: _required, ...env } = process.env;
    const run = await runFixtureTier({ ...env, CI: 'true' });
    expect(run.code).toBe(0);
    const summary = run.stdout.slice(run.stdout.indexOf('Skipped tiers'));
    expect(summary).toContain('Skipped tiers: this run is NOT the whole suite (1 tier lacked a binary)');
    expect(summary).toContain('NATS: gossip across replicas, embedding workers (nats-server)\n     skipped 2 tests in 1 file: nats-server not found');
    expect(summary).toContain('   npm run test:setup\n');
  });

  it('fails the run instead under HYPHAE_TEST_REQUIRE=all', async () => {
    const run = await runFixtureTier({ ...process.env, CI: 'true', HYPHAE_TEST_REQUIRE: 'all' });
    expect(run.code).toBe(1);
    expect(run.stdout).not.toContain('Skipped tiers');
  });
});
