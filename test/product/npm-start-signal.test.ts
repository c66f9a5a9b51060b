/**
 * `npm start` stopped as a process manager stops it: SIGTERM to npm's pid alone (docker stop,
 * systemd, a supervisor), not to the whole process group as a terminal's Ctrl-C does. npm passes
 * the signal to the shell running the script; the server must be that shell's process (`exec`),
 * or the shell dies and leaves the server running, orphaned, holding its port and data folder.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/cli-process.js';
import { userEnv, workFolder, type WorkFolder } from '../support/product-fixtures.js';

describe('`npm start` under SIGTERM to npm alone', { timeout: 300_000 }, () => {
  let folder: WorkFolder;
  let npm: ChildProcess | undefined;

  beforeAll(async () => {
    folder = await workFolder();
  });
  afterAll(async () => {
    // The group still holds an orphaned server when the script does not exec it.
    if (npm?.pid !== undefined) {
      try {
        process.kill(-npm.pid, 'SIGTERM');
      } catch {
        // the group is gone: nothing was left behind
      }
    }
    await folder?.remove();
  });

  it('stops the server with npm: the port is closed and the data folder unlocked once npm has exited', async () => {
    const dataDir = join(folder.dir, 'data');
    const child = spawn('npm', ['start', '--', '--port', '0'], {
      cwd: REPO_ROOT,
      env: userEnv({ HYPHAE_DATA_DIR: dataDir, HYPHAE_GRPC_PORT: '0' }),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    npm = child;
    // 'exit', not 'close': an orphaned server would hold npm's pipes open.
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout?.resume();
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
        const match = /serving on (http:\/\/[^\s]+)/.exec(stderr);
        if (match?.[1] !== undefined) resolve(match[1]);
      });
      void exited.then((code) => reject(new Error(`npm start exited with ${code} before serving:\n${stderr}`)));
    });
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(existsSync(join(dataDir, 'hyphae.lock'))).toBe(true);

    process.kill(child.pid as number, 'SIGTERM');
    await exited;

    // npm waits for the script's process: once npm is gone, so is the server.
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    expect(existsSync(join(dataDir, 'hyphae.lock'))).toBe(false);
    expect(stderr).toContain('SIGTERM: draining requests and closing');
  });
});
