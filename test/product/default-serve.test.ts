import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HYPHAE_BIN, startServer, type RunningServer } from '../cli/cli-process.js';

/** The user's environment: no HYPHAE_* setting at all, so every default applies (the embedder included). */
function defaultEnv(dataDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('HYPHAE_')) env[key] = value;
  return { ...env, HYPHAE_DATA_DIR: dataDir };
}

// `npm start` is `node bin/hyphae.js serve`: the checkout's TypeScript through tsx, default embedder.
describe(`the default embedded server (${HYPHAE_BIN} serve)`, { timeout: 300_000 }, () => {
  let root: string;
  let server: RunningServer | undefined;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'hyphae-product-'));
  });
  afterAll(async () => {
    await server?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('stores and recalls a paraphrase with the key it prints on first start, embedded by minilm', async () => {
    server = await startServer(['--port', '0'], defaultEnv(join(root, 'data')));
    expect(server.stderr()).toMatch(/embedder all-minilm-l6-v2-int8;/);
    const key = /hy_[A-Za-z0-9_-]{20,}/.exec(server.stdout())?.[0];
    expect(key, server.stdout()).toBeDefined();
    const headers = { 'x-hyphae-key': key ?? '', 'content-type': 'application/json' };
    const store = async (content: string): Promise<string | undefined> => {
      const stored = await fetch(`${server?.url}/v1/cells`, { method: 'POST', headers, body: JSON.stringify({ content, cell_type: 'Decision' }) });
      const body = (await stored.json()) as { node_id?: string };
      expect(stored.status, JSON.stringify(body)).toBe(201);
      return body.node_id;
    };
    const target = await store('Sessions are kept in PostgreSQL, not Redis.');
    // No word of the question is in the memory; a distractor shares one (feature hashing ranks it first).
    for (const other of ['Our payroll vendor files taxes in the state of Ohio.', 'Rotate the TLS certificates every month.', 'The web frontend is built with React and Vite.']) await store(other);
    const recalled = await fetch(`${server.url}/v1/recall`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ query: 'which database stores login state?', k: 4 }),
    });
    const recalledBody = (await recalled.json()) as { results: { node: { node_id: string } }[] };
    expect(recalled.status, JSON.stringify(recalledBody)).toBe(200);
    expect(recalledBody.results).toHaveLength(4);
    expect(recalledBody.results[0]?.node.node_id).toBe(target);
  });
});
