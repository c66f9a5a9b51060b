import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testFilesByTier } from '../support/test-projects.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
// Spelt apart so that this file's own text does not import them (the split reads imports as text).
const CHILD_PROCESS = ['node', 'child_process'].join(':');
const PLAYWRIGHT = ['playwright', 'core'].join('-');

/** A throwaway tree: each key a path under the root, each value the file's text. */
async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
}

describe('the unit and integration projects (test/support/test-projects.ts)', () => {
  let root = '';

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'hyphae-test-projects-'));
    await writeTree(root, {
      'test/support/starts-server.ts': `import { spawn } from '${CHILD_PROCESS}';\nexport const start = spawn;\n`,
      'test/support/wraps-server.ts': "export { start } from './starts-server.js';\n",
      'test/support/browser.ts': `import { chromium } from '${PLAYWRIGHT}';\nexport const browser = chromium;\n`,
      'test/support/in-process.ts': "import { join } from 'node:path';\nexport const here = join('.');\n",
      'test/support/cycle-a.ts': "import { b } from './cycle-b.js';\nexport const a = b;\n",
      'test/support/cycle-b.ts': "import { a } from './cycle-a.js';\nimport { start } from './wraps-server.js';\nexport const b = [a, start];\n",
      'test/area/direct.test.ts': `import { execFile } from '${CHILD_PROCESS}';\n`,
      'test/area/through-helpers.test.ts': "import { start } from '../support/wraps-server.js';\n",
      'test/area/through-a-cycle.test.ts': "import { a } from '../support/cycle-a.js';\n",
      'test/area/browser.test.ts': "const { browser } = await import('../support/browser.js');\n",
      'test/area/in-process.test.ts': "import { here } from '../support/in-process.js';\nimport { z } from 'zod';\n",
      'test/other/elsewhere.test.ts': `import { spawn } from '${CHILD_PROCESS}';\n`,
      'src/core/beside-the-code.test.ts': "import { here } from '../../test/support/in-process.js';\n",
    });
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('puts a file in integration when it, or anything of ours it imports, starts a process; every other file in unit', () => {
    const tiers = testFilesByTier(root, ['src', 'test'], ['test/other/']);
    expect(tiers.integration).toEqual([
      'test/area/browser.test.ts',
      'test/area/direct.test.ts',
      'test/area/through-a-cycle.test.ts',
      'test/area/through-helpers.test.ts',
    ]);
    expect(tiers.unit).toEqual(['src/core/beside-the-code.test.ts', 'test/area/in-process.test.ts']);
  });

  it('splits this repository so that nats-server and native PostgreSQL tests are integration and a PGlite-only test is unit', () => {
    const tiers = testFilesByTier(REPO, ['src', 'test'], ['test/k8s/', 'test/chart/', 'test/e2e/']);
    expect(tiers.integration).toEqual(expect.arrayContaining(['test/mesh/nats-bus.test.ts', 'test/store/pg-driver-native.test.ts', 'test/console/console-browser.test.ts']));
    expect(tiers.unit).toContain('test/mesh/outbox-relay.test.ts');
    expect(tiers.unit.filter((file) => tiers.integration.includes(file))).toEqual([]);
  });
});
