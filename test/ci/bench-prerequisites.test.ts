/** `npm run bench`: a section whose prerequisite binary is missing fails loudly (exit 1, named), never prints a row of zeros. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('bench sections without their prerequisite', () => {
  it.each(['mesh', 'channel', 'worker'])('the %s section fails naming the missing nats-server', async (section) => {
    const missing = '/nonexistent/nats-server';
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', 'bench/run.ts', section],
        { cwd: ROOT, env: { ...process.env, NATS_SERVER_BIN: missing } },
        (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
      );
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`failed: the ${section} bench needs ${missing}`);
    expect(result.stdout).not.toContain(`## `);
  });
});
