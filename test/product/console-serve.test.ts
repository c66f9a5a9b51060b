/**
 * `npm install && npm start` from a fresh clone serves the web console: the repository's tracked
 * files (what a clone holds: no dist/, no bundle) with the checkout's node_modules, then `npm start`
 * — which builds the bundle because it is missing — and /console answers the page and its script.
 */
import { execFileSync } from 'node:child_process';
import { cp, mkdir, symlink } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, startHyphae } from '../support/cli-process.js';
import { userEnv, workFolder } from '../support/product-fixtures.js';
import type { WorkFolder } from '../support/product-fixtures.js';

describe('npm start in a fresh clone serves /console', { timeout: 600_000 }, () => {
  let folder: WorkFolder;
  let clone = '';

  beforeAll(async () => {
    folder = await workFolder();
    clone = join(folder.dir, 'hyphae');
    const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: REPO_ROOT, encoding: 'utf8' }).split('\0').filter((path) => path !== '');
    for (const path of tracked) {
      if (!existsSync(join(REPO_ROOT, path))) continue;
      await mkdir(dirname(join(clone, path)), { recursive: true });
      await cp(join(REPO_ROOT, path), join(clone, path));
    }
    await symlink(join(REPO_ROOT, 'node_modules'), join(clone, 'node_modules'), 'dir');
  });
  afterAll(async () => {
    await folder?.remove();
  });

  it('builds the missing bundle, then serves the page and its assets', async () => {
    expect(existsSync(join(clone, 'dist'))).toBe(false);
    const server = await startHyphae(
      ['--port', '0'],
      userEnv({ HYPHAE_EMBEDDER: 'hash', HYPHAE_GRPC_PORT: '0', HYPHAE_LOG_LEVEL: 'warn' }),
      /serving on (http:\/\/[^\s]+)/,
      { command: 'npm', args: ['start', '--'], cwd: clone, signalGroup: true },
    );
    try {
      expect(existsSync(join(clone, 'dist', 'console', 'index.html'))).toBe(true);
      const page = await fetch(`${server.url}/console/`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
      const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(await page.text())?.[1];
      expect(script).toBeDefined();
      const asset = await fetch(`${server.url}${script ?? ''}`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    } finally {
      await server.stop();
    }
  });
});
