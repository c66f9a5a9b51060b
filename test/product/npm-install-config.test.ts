/**
 * `npm install` in the checkout must run no dependency install script (onnxruntime-node's would
 * download CUDA libraries from NuGet on Linux x64), and the setting that says so must be one npm
 * knows: an unknown project key makes npm 11 warn on every command.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/cli-process.js';
import { userEnv } from '../support/product-fixtures.js';

function npm(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // npm_config_* from a calling npm (npx vitest) would override the project's .npmrc.
    const env = Object.fromEntries(Object.entries(userEnv()).filter(([key]) => !key.toLowerCase().startsWith('npm_config_')));
    const child = spawn('npm', [...args], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe("the checkout's npm configuration", () => {
  it('turns install scripts off with a setting npm knows, so no command warns about the project config', async () => {
    const result = await npm(['config', 'get', 'ignore-scripts']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe('true');
    expect(result.stderr).not.toMatch(/Unknown project config/);
  });
});
