// The workflows under .github/workflows through actionlint: syntax, expressions and contexts, the
// inputs of the actions they use, job dependencies, and their `run:` scripts through shellcheck
// (when it is on PATH; .ci/run installs it). actionlint: PATH, else scripts/actionlint.sh's cache.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { executable } from '../support/k8s/assets.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const WORKFLOWS = join(repoRoot, '.github', 'workflows');

function findActionlint(): string | undefined {
  const cache = join(homedir(), '.cache', 'hyphae');
  const cached = existsSync(cache) ? readdirSync(cache).filter((d) => d.startsWith('actionlint-')).sort().reverse().map((d) => join(cache, d)) : [];
  const pathDirs = (process.env.PATH ?? '').split(delimiter).filter((d) => d !== '');
  return [...pathDirs, ...cached].map((d) => join(d, 'actionlint')).find(executable);
}

function skipReason(): string | undefined {
  if (findActionlint()) return undefined;
  const reason = 'workflow lint skipped: missing actionlint (put it on PATH or run scripts/actionlint.sh)';
  if (process.env.HYPHAE_TEST_REQUIRE === 'all') throw new Error(reason.replace('skipped', 'required'));
  console.warn(reason);
  return reason;
}

function actionlint(files: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(findActionlint() as string, ['-no-color', ...files], { cwd: repoRoot }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

describe.skipIf(skipReason() !== undefined)('GitHub Actions workflows', () => {
  const workflows = readdirSync(WORKFLOWS).filter((f) => /\.ya?ml$/.test(f)).map((f) => join('.github', 'workflows', f));

  it('has the CI and release workflows', () => {
    expect(workflows.map((f) => f.split('/').pop()).sort()).toEqual(['ci.yml', 'release.yml']);
  });

  it('passes actionlint', async () => {
    const r = await actionlint(workflows);
    expect(r.output).toBe('');
    expect(r.code).toBe(0);
  });
});
