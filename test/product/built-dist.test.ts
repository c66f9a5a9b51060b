/**
 * The compiled product, as the image runs it: `npm run build` in a copy of the checkout, then the
 * sources are removed, leaving what the Dockerfile's runtime stage holds (package.json, bin/,
 * dist/, node_modules). `node bin/hyphae.js serve` with the default configuration stores and
 * recalls a paraphrase from it and serves the web console at /console, and `hyphae worker --embedder use-lite` loads its model from it
 * (the tsx path of both is covered by default-serve and reembed-command).
 */
import { spawn } from 'node:child_process';
import { cp, mkdir, rm, symlink } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, startServer, startWorker } from '../support/cli-process.js';
import type { Launcher } from '../support/cli-process.js';
import { ANSWER, KEY_PATTERN, nearestOverEmbeddings, recallOverRest, storeOverRest, userEnv, workFolder } from '../support/product-fixtures.js';
import type { WorkFolder } from '../support/product-fixtures.js';

/** What `npm run build` reads: the package manifest, the TypeScript configs, the sources (the console's too) and the build scripts. */
const BUILD_INPUTS = ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'bin', 'src', 'operator', 'console', 'scripts'];

function npmRunBuild(cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', 'build'], { cwd, env: userEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('the built dist/ without the sources (npm run build, then node bin/hyphae.js)', { timeout: 600_000 }, () => {
  let folder: WorkFolder;
  let app = '';
  let data = '';
  let launcher: Launcher;

  beforeAll(async () => {
    folder = await workFolder();
    app = join(folder.dir, 'app');
    data = join(folder.dir, 'data');
    await mkdir(data);
    for (const input of BUILD_INPUTS) await cp(join(REPO_ROOT, input), join(app, input), { recursive: true });
    await symlink(join(REPO_ROOT, 'node_modules'), join(app, 'node_modules'), 'dir');
    const built = await npmRunBuild(app);
    expect(built.code, built.output).toBe(0);
    // Only the image's contents remain: nothing can fall back on src/ or on tsx compiling it.
    for (const source of ['src', 'operator', 'console', 'scripts', 'tsconfig.json', 'tsconfig.build.json']) await rm(join(app, source), { recursive: true, force: true });
    expect(existsSync(join(app, 'dist', 'src', 'cli', 'main.js'))).toBe(true);
    expect(existsSync(join(app, 'dist', 'console', 'index.html'))).toBe(true);
    launcher = { command: process.execPath, args: [join(app, 'bin', 'hyphae.js')], cwd: data };
  });
  afterAll(async () => {
    await folder.remove();
  });

  it('serve with the default configuration migrates a fresh folder, stores and recalls a paraphrase, and stops cleanly', async () => {
    const server = await startServer(['--port', '0'], userEnv(), launcher);
    try {
      expect(server.stderr()).toMatch(/embedder all-minilm-l6-v2;/);
      for (let i = 0; i < 200 && !KEY_PATTERN.test(server.stdout()); i++) await new Promise((r) => setTimeout(r, 50));
      const key = KEY_PATTERN.exec(server.stdout())?.[0] ?? '';
      expect(key, server.stdout()).toMatch(KEY_PATTERN);
      const answer = await storeOverRest(server.url, key);
      expect(await recallOverRest(server.url, key)).toBe(answer);
      // The web console's bundle came with dist/: served at /console.
      const page = await fetch(`${server.url}/console/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('/console/assets/');
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it('worker --embedder use-lite loads USE Lite from the compiled modules and ranks the paraphrase first', async () => {
    const worker = await startWorker(['--port', '0', '--embedder', 'use-lite'], userEnv(), launcher);
    try {
      const { nearest, dimension } = await nearestOverEmbeddings(worker.url);
      expect(dimension).toBe(512);
      expect(nearest).toBe(ANSWER);
    } finally {
      expect(await worker.stop()).toBe(0);
    }
  });
});
