import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runHyphae, startServer, type RunningServer } from '../support/cli-process.js';

const MEMORY = 'Steps to recover a forgotten login credential: open the account page and request a reset link.';
const QUESTION = 'How do I reset my password?';

/** No HYPHAE_EMBEDDER: the default (minilm) applies unless a flag names another. */
function envFor(dataDir: string): NodeJS.ProcessEnv {
  const { HYPHAE_EMBEDDER: _unset, ...env } = cliEnv({ HYPHAE_DATA_DIR: dataDir });
  return env;
}

describe('hyphae reembed: a folder created with use-lite-512 upgraded to the default minilm', { timeout: 300_000 }, () => {
  let root: string;
  let server: RunningServer | undefined;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'hyphae-reembed-'));
  });
  afterAll(async () => {
    await server?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('is refused while a server holds the folder, then moves every cell so the default server recalls by meaning', async () => {
    const env = envFor(join(root, 'data'));
    const created = await runHyphae(['keys', 'create', '--tenant', 'default', '--agent', 'a', '--projects', '*', '--embedder', 'use-lite'], env);
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.trim();
    const headers = { 'x-hyphae-key': key, 'content-type': 'application/json' };

    server = await startServer(['--port', '0', '--embedder', 'use-lite'], env);
    const stored = await fetch(`${server.url}/v1/cells`, { method: 'POST', headers, body: JSON.stringify({ content: MEMORY, cell_type: 'Fact' }) });
    const { node_id: target } = (await stored.json()) as { node_id: string };
    expect(stored.status).toBe(201);
    for (const content of ['Rotate the TLS certificates every month.', 'The web frontend is built with React and Vite.']) {
      expect((await fetch(`${server.url}/v1/cells`, { method: 'POST', headers, body: JSON.stringify({ content, cell_type: 'Fact' }) })).status).toBe(201);
    }
    const busy = await runHyphae(['reembed'], env);
    expect(busy.code).toBe(2);
    expect(busy.stderr).toMatch(/in use by pid \d+/);
    await server.stop();
    server = undefined;

    const refused = await runHyphae(['migrate'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/created with model use-lite-512 \(512-d\).*hyphae reembed/);

    const moved = await runHyphae(['reembed'], env);
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stderr).toContain('moving 3 cells and beacons from use-lite-512 (512-d) to all-minilm-l6-v2 (384-d)');
    expect(moved.stderr).toMatch(/hyphae reembed: 3\/3 \(100%\) tenant default cells/);
    expect(moved.stderr).toContain('the database now uses all-minilm-l6-v2 (384-d)');
    const again = await runHyphae(['reembed'], env);
    expect(again.stderr).toContain('already uses all-minilm-l6-v2');

    server = await startServer(['--port', '0'], env);
    const recalled = await fetch(`${server.url}/v1/recall`, { method: 'POST', headers, body: JSON.stringify({ query: QUESTION, k: 3 }) });
    const body = (await recalled.json()) as { results: { node: { node_id: string } }[] };
    expect(recalled.status, JSON.stringify(body)).toBe(200);
    expect(body.results[0]?.node.node_id).toBe(target);
  });

  it('rejects a bad batch size and unexpected arguments with exit code 2', async () => {
    const env = envFor(join(root, 'other'));
    expect((await runHyphae(['reembed', '--batch-size', 'zero'], env)).code).toBe(2);
    expect((await runHyphae(['reembed', 'now'], env)).code).toBe(2);
  });
});
