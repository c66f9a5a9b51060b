/**
 * `npm start` as a user runs it: `node bin/hyphae.js serve` in a fresh folder with no HYPHAE_*
 * setting (only `--port 0`, so runs never collide), the default embedder included. The key it
 * prints on first start stores and recalls a paraphrase over REST, MCP over HTTP (the official SDK
 * client) and the stdio bridge (`npx hyphae mcp --remote`); `npx hyphae keys create` mints a key
 * on the stopped folder, and a restart finds both the data and that key. The first start also
 * serves gRPC on its default port (50051, the one test that leaves HYPHAE_GRPC_PORT to its default).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HYPHAE_BIN, NODE_LAUNCHER, npxLauncher, runHyphae, startServer } from '../support/cli-process.js';
import type { RunningServer } from '../support/cli-process.js';
import { DEFAULT_GRPC_PORT } from '../../src/core/config.js';
import { grpcJsClient } from '../support/grpc/grpc-js-client.js';
import { KEY_PATTERN, recallOverMcp, recallOverRest, storeOverMcp, storeOverRest, userEnv, workFolder } from '../support/product-fixtures.js';
import type { WorkFolder } from '../support/product-fixtures.js';

async function printedKey(server: RunningServer): Promise<string | undefined> {
  // stdout and stderr are separate pipes: the banner may arrive just after the "serving on" line.
  for (let i = 0; i < 200 && !server.stdout().includes('"mcpServers"'); i++) await new Promise((r) => setTimeout(r, 50));
  return KEY_PATTERN.exec(server.stdout())?.[0];
}

describe(`the default embedded server (node ${HYPHAE_BIN} serve)`, { timeout: 600_000 }, () => {
  let folder: WorkFolder;
  let server: RunningServer | undefined;
  let key = '';
  const answers: string[] = [];

  beforeAll(async () => {
    folder = await workFolder();
  });
  afterAll(async () => {
    await server?.stop();
    await folder.remove();
  });

  const launcher = (): typeof NODE_LAUNCHER => ({ ...NODE_LAUNCHER, cwd: folder.dir });

  it('first start mints the key it prints; REST stores and recalls a paraphrase with it', async () => {
    // An empty HYPHAE_GRPC_PORT is unset: the default gRPC port (startServer turns it off otherwise).
    server = await startServer(['--port', '0'], userEnv({ HYPHAE_GRPC_PORT: '' }), launcher());
    // The default embedder is minilm (issue 11); the paraphrase checks below hold for any sentence model.
    expect(server.stderr()).toMatch(/embedder all-minilm-l6-v2;/);
    key = (await printedKey(server)) ?? '';
    expect(key, server.stdout()).toMatch(KEY_PATTERN);
    expect(existsSync(join(folder.dir, '.hyphae'))).toBe(true);
    answers.push(await storeOverRest(server.url, key));
    expect(await recallOverRest(server.url, key)).toBe(answers[0]);
  });

  it(`serves gRPC on the default port ${DEFAULT_GRPC_PORT}: health SERVING, and the key recalls the paraphrase over @grpc/grpc-js`, async () => {
    expect(server?.stderr()).toContain(`gRPC, gRPC-Web and Connect (h2c) on 127.0.0.1:${DEFAULT_GRPC_PORT}`);
    const health = grpcJsClient(`127.0.0.1:${DEFAULT_GRPC_PORT}`, 'grpc/health/v1/health.proto', ['grpc', 'health', 'v1', 'Health']);
    const memory = grpcJsClient(`127.0.0.1:${DEFAULT_GRPC_PORT}`);
    try {
      expect(await health.unary('Check', { service: '' }, undefined)).toEqual({ status: 'SERVING' });
      const recalled = await memory.unary<{ results: { node: { node_id: string } }[] }>('Recall', { query: 'how do clients receive their bills?', k: 1 }, key);
      expect(recalled.results.map((hit) => hit.node.node_id)).toEqual([answers[0]]);
    } finally {
      health.close();
      memory.close();
    }
  });

  it('MCP over HTTP (the official SDK client) stores the same memories — reinforcing them — and recalls the paraphrase', async () => {
    const client = new Client({ name: 'product-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server?.url}/mcp`), { requestInit: { headers: { 'x-hyphae-key': key } } }));
    try {
      // The same memories again, over MCP: minilm's near-duplicate reinforcement (on by default)
      // answers with the cells REST stored instead of writing copies.
      answers.push(await storeOverMcp(client));
      expect(answers[1]).toBe(answers[0]);
      const result = await client.callTool({ name: 'recall', arguments: { query: 'how do clients receive their bills?', k: 2 } });
      const top = (result.structuredContent as { results: { node_id: string }[] }).results.map((r) => r.node_id);
      expect(top[0]).toBe(answers[0]);
      expect(new Set(top).size).toBe(top.length);
    } finally {
      await client.close();
    }
  });

  it('the stdio bridge (npx hyphae mcp --remote) recalls it through the running server', async () => {
    const npx = npxLauncher(folder.dir);
    const client = new Client({ name: 'product-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: npx.command,
        args: [...npx.args, 'mcp', '--remote', `${server?.url}/mcp`],
        cwd: folder.dir,
        env: userEnv({ HYPHAE_API_KEY: key }),
        stderr: 'pipe',
      }),
    );
    try {
      expect(answers).toContain(await recallOverMcp(client));
    } finally {
      await client.close();
    }
  });

  it('stops cleanly; `npx hyphae keys create` mints a key on the folder; a restart finds the data and accepts the key', async () => {
    expect(await server?.stop()).toBe(0);
    server = undefined;
    const created = await runHyphae(['keys', 'create', '--tenant', 'default', '--agent', 'second-agent', '--projects', '*'], userEnv(), undefined, npxLauncher(folder.dir));
    expect(created.code, created.stderr).toBe(0);
    const second = created.stdout.trim();
    expect(second).toMatch(new RegExp(`^${KEY_PATTERN.source}$`));

    server = await startServer(['--port', '0'], userEnv(), launcher());
    expect(server.stdout()).not.toMatch(KEY_PATTERN);
    const read = await fetch(`${server.url}/v1/cells/${answers[0]}`, { headers: { 'x-hyphae-key': key } });
    expect(read.status).toBe(200);
    expect(answers).toContain(await recallOverRest(server.url, second));
  });
});
