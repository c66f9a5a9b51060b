/**
 * `npx hyphae mcp` (stdio, its own embedded database) and `npx hyphae worker` as the README runs
 * them: from a fresh folder, no HYPHAE_* setting but the stdio identity, the default embedder.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npxLauncher, runHyphae, startWorker } from '../support/cli-process.js';
import { ANSWER, KEY_PATTERN, nearestOverEmbeddings, recallOverMcp, storeOverMcp, userEnv, workFolder } from '../support/product-fixtures.js';
import type { WorkFolder } from '../support/product-fixtures.js';

describe('npx hyphae mcp and npx hyphae worker, default configuration', { timeout: 600_000 }, () => {
  let folder: WorkFolder;
  beforeAll(async () => {
    folder = await workFolder();
  });
  afterAll(async () => {
    await folder.remove();
  });

  const stdioClient = async (key: string): Promise<Client> => {
    const npx = npxLauncher(folder.dir);
    const client = new Client({ name: 'product-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: npx.command, args: [...npx.args, 'mcp'], cwd: folder.dir, env: userEnv({ HYPHAE_API_KEY: key }), stderr: 'pipe' }),
    );
    return client;
  };

  it('stdio stores and recalls a paraphrase with a key from `npx hyphae keys create`; a new stdio process finds it', async () => {
    const created = await runHyphae(['keys', 'create', '--tenant', 'default', '--agent', 'claude-code', '--projects', '*'], userEnv(), undefined, npxLauncher(folder.dir));
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(new RegExp(`^${KEY_PATTERN.source}$`));

    const first = await stdioClient(key);
    let answer: string;
    try {
      answer = await storeOverMcp(first);
      expect(await recallOverMcp(first)).toBe(answer);
    } finally {
      await first.close();
    }
    // The first process has released the folder: a second one (the agent's next launch) reads the same data.
    const second = await stdioClient(key);
    try {
      expect(await recallOverMcp(second)).toBe(answer);
    } finally {
      await second.close();
    }
  });

  it('the worker serves OpenAI-compatible embeddings whose nearest memory to the question is its paraphrase, and stops on SIGTERM', async () => {
    const worker = await startWorker(['--port', '0'], userEnv(), npxLauncher(folder.dir));
    try {
      expect((await fetch(`${worker.url}/healthz`)).status).toBe(200);
      expect((await nearestOverEmbeddings(worker.url)).nearest).toBe(ANSWER);
    } finally {
      await worker.stop();
    }
    await expect(fetch(`${worker.url}/healthz`)).rejects.toThrow();
  });
});
