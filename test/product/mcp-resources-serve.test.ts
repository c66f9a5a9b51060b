/**
 * The product as a user runs it: `hyphae serve` spawned with no HYPHAE_* setting (embedded
 * PGlite, the default embedder), the official SDK client over Streamable HTTP, `hyphae mcp
 * --remote` and `hyphae hook --remote` as child processes. An MCP-only agent reads every cell it
 * recalls without REST, hears its inbox change, gets the catch_up prompt, and the hook prints
 * each new diff once.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetPromptResultSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runHyphae, startServer, type RunningServer } from '../support/cli-process.js';
import { connectBridge, connectHttp } from '../support/mcp/sdk-clients.js';
import type { ConnectedClient } from '../support/mcp/sdk-clients.js';
import { waitFor } from '../support/wait-for.js';

const INTEREST = 'The staging database is restored from the nightly backup every Monday.';

function defaultEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('HYPHAE_')) env[key] = value;
  return { ...env, ...extra };
}

describe('MCP resources, subscriptions, prompts and the hook against the default `hyphae serve`', { timeout: 300_000 }, () => {
  let root: string;
  let server: RunningServer | undefined;
  const clients: ConnectedClient[] = [];
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'hyphae-resources-product-'));
    server = await startServer(['--port', '0'], defaultEnv({ HYPHAE_DATA_DIR: join(root, 'data') }));
    const admin = /hy_[A-Za-z0-9_-]{20,}/.exec(server.stdout())?.[0] ?? '';
    for (const agent of ['writer', 'reader']) {
      const response = await fetch(`${server.url}/v1/admin/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hyphae-key': admin },
        body: JSON.stringify({ tenant: 'default', agent }),
      });
      keys[agent] = ((await response.json()) as { key: string }).key;
    }
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await server?.stop();
    await rm(root, { recursive: true, force: true });
  });

  const liveStreams = async (): Promise<number> => {
    const metrics = await (await fetch(`${server?.url}/metrics`)).text();
    return Number(/^hyphae_live_streams (\d+)/m.exec(metrics)?.[1] ?? 0);
  };
  const hook = (stateDir: string): Promise<{ code: number | null; stdout: string; stderr: string }> =>
    runHyphae(['hook', '--remote', server?.url ?? '', '--state-dir', stateDir], defaultEnv({ HYPHAE_API_KEY: keys.reader ?? '' }));

  it('reads recalled cells, hears the inbox, serves catch_up, and the hook prints each diff once', async () => {
    const mcpUrl = new URL('/mcp', server?.url);
    const writer = await connectHttp(mcpUrl, keys.writer ?? '', '2025-11-25');
    const reader = await connectHttp(mcpUrl, keys.reader ?? '', '2025-11-25');
    clients.push(writer, reader);
    const updated: string[] = [];
    reader.client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (n) => {
      updated.push(n.params.uri);
    });
    await waitFor(async () => (await liveStreams()) >= 2);
    await reader.client.callTool({ name: 'place_beacon', arguments: { text: INTEREST, threshold: 0.5 } });
    await reader.client.subscribeResource({ uri: 'hyphae://inbox' });
    const stateDir = join(root, 'hook-state');
    expect(await hook(stateDir)).toMatchObject({ code: 0, stdout: '' });

    const stored = await writer.client.callTool({ name: 'store', arguments: { content: INTEREST, cell_type: 'Fact', salience: 0.7 } });
    const nodeId = String((stored.structuredContent as { node_id: string }).node_id);
    await waitFor(() => updated.length === 1);
    expect(updated).toEqual(['hyphae://inbox']);

    // The writer recalls and reads every hit through its resource_link, never REST.
    const recalled = await writer.client.callTool({ name: 'recall', arguments: { query: 'when is staging restored?', k: 5 } });
    const links = (recalled.content as { type: string; uri?: string }[]).filter((block) => block.type === 'resource_link');
    expect(links.map((link) => link.uri)).toContain(`hyphae://cells/${nodeId}`);
    for (const link of links) {
      const { contents } = await writer.client.readResource({ uri: link.uri ?? '' });
      expect((contents[0] as { text: string }).text).toContain(INTEREST);
    }

    const prompt = GetPromptResultSchema.parse(await reader.client.getPrompt({ name: 'catch_up' }));
    expect(prompt.messages[1]?.content).toMatchObject({ type: 'resource', resource: { uri: `hyphae://cells/${nodeId}`, mimeType: 'text/markdown' } });

    const first = await hook(stateDir);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(INTEREST);
    expect(first.stdout).toContain(`hyphae://cells/${nodeId}`);
    expect(await hook(stateDir)).toMatchObject({ code: 0, stdout: '' });

    const next = await writer.client.callTool({ name: 'store', arguments: { content: `${INTEREST} Not this week.`, cell_type: 'Fact' } });
    const nextId = String((next.structuredContent as { node_id: string }).node_id);
    await waitFor(() => updated.length === 2);
    const second = await hook(stateDir);
    expect(second.stdout).toContain(`hyphae://cells/${nextId}`);
    expect(second.stdout).not.toContain(`hyphae://cells/${nodeId}`);

    // Draining moves the server's cursor: the hook has nothing, and the prompt only its summary.
    await reader.client.callTool({ name: 'drain_inbox', arguments: {} });
    expect((await hook(join(root, 'fresh-hook-state'))).stdout).toBe('');
    expect((await reader.client.getPrompt({ name: 'catch_up' })).messages).toHaveLength(1);
  });

  it('the stdio bridge (hyphae mcp --remote) lists and reads the same resources', async () => {
    const bridged = await connectBridge('2025-11-25', new URL('/mcp', server?.url), keys.reader ?? '');
    clients.push(bridged);
    const { resources } = await bridged.client.listResources();
    expect(resources[0]?.uri).toBe('hyphae://inbox');
    const cell = resources.find((resource) => resource.uri.startsWith('hyphae://cells/'));
    expect(cell).toBeDefined();
    const { contents } = await bridged.client.readResource({ uri: cell?.uri ?? '' });
    expect((contents[1] as { mimeType: string }).mimeType).toBe('application/json');
  });

  it('the hook fails without exit code 2 (which would block the prompt) when the key is missing or refused', async () => {
    const missing = await runHyphae(['hook', '--remote', server?.url ?? ''], defaultEnv({}));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/HYPHAE_API_KEY/);
    const refused = await runHyphae(['hook', '--remote', server?.url ?? '', '--state-dir', join(root, 'x')], defaultEnv({ HYPHAE_API_KEY: 'hy_not_a_key_at_all_000000000000' }));
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
  });
});
