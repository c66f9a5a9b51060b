/**
 * MCP resources with the official SDK client over Streamable HTTP (the real app on loopback),
 * over stdio (a spawned `hyphae mcp`, embedded) and over stdio bridged to HTTP (`--remote`):
 * the cell template, reading every recalled cell without REST, tenancy and project scope on
 * reads, resources/list with pagination, resource_link blocks in every tool result that names
 * cells, and the inbox read without draining.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, ReadResourceResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryNode } from '../../src/core/entities.js';
import { createTestRuntime } from '../support/test-runtime.js';
import type { TestRuntime } from '../support/test-runtime.js';
import { startMcpHttpServer } from './mcp-http-server.js';
import type { ListeningMcpServer } from './mcp-http-server.js';
import { connectBridge, connectHttp, connectStdio, createEmbeddedDataDir } from '../support/mcp/sdk-clients.js';
import type { ConnectedClient, EmbeddedDataDir } from '../support/mcp/sdk-clients.js';

interface Block {
  readonly type: string;
  readonly text?: string;
  readonly uri?: string;
  readonly name?: string;
  readonly description?: string;
  readonly mimeType?: string;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ structured: Record<string, unknown>; blocks: Block[] }> {
  const result = CallToolResultSchema.parse(await client.callTool({ name, arguments: args }));
  expect(result.isError).toBe(false);
  const blocks = result.content as Block[];
  expect(blocks[0]?.type).toBe('text');
  expect(JSON.parse(blocks[0]?.text ?? 'null')).toEqual(result.structuredContent);
  return { structured: result.structuredContent as Record<string, unknown>, blocks };
}

function links(blocks: readonly Block[]): Block[] {
  return blocks.filter((block) => block.type === 'resource_link');
}

async function readCell(client: Client, uri: string): Promise<{ markdown: string; node: MemoryNode }> {
  const result = ReadResourceResultSchema.parse(await client.readResource({ uri }));
  expect(result.contents).toHaveLength(2);
  const [markdown, json] = result.contents as { uri: string; mimeType: string; text: string }[];
  expect(markdown).toMatchObject({ uri, mimeType: 'text/markdown' });
  expect(json).toMatchObject({ uri, mimeType: 'application/json' });
  return { markdown: markdown?.text ?? '', node: JSON.parse(json?.text ?? 'null') as MemoryNode };
}

async function expectNotFound(client: Client, uri: string): Promise<void> {
  await expect(client.readResource({ uri })).rejects.toMatchObject({ code: -32002 });
}

const CONTENTS = [
  'Deploys to the billing cluster need a database migration review first.',
  'The billing cluster runs PostgreSQL 18 with pgvector.',
  'Never rotate the billing database credentials on a Friday.',
];

/** The recall → read loop an MCP-only agent runs: every hit is read through its resource_link. */
async function recallAndReadAll(client: Client): Promise<void> {
  const stored: string[] = [];
  for (const content of CONTENTS) {
    const { structured, blocks } = await call(client, 'store', { content, cell_type: 'Decision', source_ref: { kind: 'file', locator: 'ops/billing.md:3' } });
    stored.push(String(structured.node_id));
    expect(links(blocks).map((link) => link.uri)).toEqual([`hyphae://cells/${String(structured.node_id)}`]);
  }
  const { structured, blocks } = await call(client, 'recall', { query: 'billing database', k: 10 });
  const results = structured.results as { node_id: string; distance: number }[];
  // structuredContent stays ids, distances and scores, never content.
  for (const result of results) expect(Object.keys(result).sort()).toEqual(['distance', 'node_id', 'score']);
  expect(results.map((r) => r.node_id).sort()).toEqual([...stored].sort());
  const recalled = links(blocks);
  expect(recalled.map((link) => link.uri)).toEqual(results.map((r) => `hyphae://cells/${r.node_id}`));
  for (const link of recalled) {
    expect(link.mimeType).toBe('text/markdown');
    expect(typeof link.name).toBe('string');
    const { markdown, node } = await readCell(client, link.uri ?? '');
    expect(CONTENTS).toContain(node.content);
    expect(link.description).toBe(node.content);
    expect(markdown.startsWith(`${node.content}\n`)).toBe(true);
    expect(markdown).toContain(`Decision (L0) · by ${node.source_agent} · project ${node.project} · ${node.created_at} · source file ops/billing.md:3`);
  }
}

describe('MCP resources over Streamable HTTP', () => {
  let runtime: TestRuntime;
  let server: ListeningMcpServer;
  let alice: ConnectedClient;
  let bob: ConnectedClient;
  let mallory: ConnectedClient;
  let narrow: ConnectedClient;

  beforeAll(async () => {
    runtime = await createTestRuntime();
    server = await startMcpHttpServer(runtime.facade);
    const key = async (tenant: string, agent: string, projects?: string[]): Promise<string> =>
      (await runtime.mintKey({ tenant, agent, ...(projects === undefined ? {} : { projects }) })).key;
    [alice, bob, mallory, narrow] = await Promise.all([
      connectHttp(server.url, await key('acme', 'alice'), '2025-11-25'),
      connectHttp(server.url, await key('acme', 'bob'), '2025-06-18'),
      connectHttp(server.url, await key('evil', 'mallory'), '2025-11-25'),
      connectHttp(server.url, await key('acme', 'narrow', ['elsewhere']), '2025-11-25'),
    ]);
  });

  afterAll(async () => {
    await Promise.all([alice, bob, mallory, narrow].map((c) => c?.close()));
    await server?.close();
    await runtime?.close();
  });

  it('advertises resources and the cell template', async () => {
    expect(alice.client.getServerCapabilities()?.resources).toBeDefined();
    const { resourceTemplates } = await alice.client.listResourceTemplates();
    expect(resourceTemplates).toEqual([
      expect.objectContaining({ uriTemplate: 'hyphae://cells/{node_id}', mimeType: 'text/markdown' }),
      expect.objectContaining({ uriTemplate: 'hyphae://sources/{source_id}{?offset,limit,project}', mimeType: 'text/plain' }),
      expect.objectContaining({ uriTemplate: 'hyphae://cells/{node_id}/subgraph{?depth,max_members,as_of}', mimeType: 'application/json' }),
      expect.objectContaining({ uriTemplate: 'hyphae://sources/{source_id}/chunks{?version,limit,cursor,project}', mimeType: 'text/markdown' }),
    ]);
  });

  it('stores relations through the store tool and reads hyphae://cells/{id}/subgraph; foreign or random ids are not found alike', async () => {
    const question = (await call(alice.client, 'store', { content: 'Which region hosts the billing replicas?', cell_type: 'Context' })).structured;
    const answer = (
      await call(alice.client, 'store', {
        content: 'Billing replicas live in eu-west-2 and us-east-1.',
        cell_type: 'Fact',
        relations: [{ to: question.node_id, type: 'answers' }],
      })
    ).structured;
    const uri = `hyphae://cells/${String(answer.node_id)}/subgraph?depth=1&max_members=5`;
    const result = ReadResourceResultSchema.parse(await alice.client.readResource({ uri }));
    const [outline, json] = result.contents as { uri: string; mimeType: string; text: string }[];
    expect(outline).toMatchObject({ uri, mimeType: 'text/markdown' });
    expect(outline?.text).toContain(`hyphae://cells/${String(question.node_id)} (answers of ${String(answer.node_id)})`);
    const graph = JSON.parse(json?.text ?? 'null') as { members: { id: string; depth: number }[]; relations: unknown[]; truncated: boolean };
    expect(graph.members.map((m) => [m.id, m.depth])).toEqual([
      [answer.node_id, 0],
      [question.node_id, 1],
    ]);
    expect(graph.relations).toEqual([{ from: answer.node_id, to: question.node_id, type: 'answers' }]);
    expect(graph.truncated).toBe(false);
    await expectNotFound(mallory.client, uri);
    await expectNotFound(narrow.client, uri);
    await expectNotFound(alice.client, `hyphae://cells/${randomUUID()}/subgraph`);
    await expectNotFound(alice.client, `hyphae://cells/${String(answer.node_id)}/subgraph?depth=1&depth=2`);
    await expect(alice.client.readResource({ uri: `hyphae://cells/${String(answer.node_id)}/subgraph?depth=11` })).rejects.toMatchObject({ code: -32602 });
    // A relation to another tenant's cell is refused by the store tool as a random id is.
    const foreign = (await call(mallory.client, 'store', { content: 'Evil Corp keeps replicas on the moon.', cell_type: 'Fact' })).structured;
    const refusals = await Promise.all(
      [String(foreign.node_id), randomUUID()].map(async (to) => {
        const refused = (await alice.client.callTool({ name: 'store', arguments: { content: 'Replicas moved.', cell_type: 'Fact', relations: [{ to, type: 'contradicts' }] } }).then(
          () => ({}),
          (error: unknown) => error,
        )) as { code?: unknown; message?: unknown; data?: unknown };
        return JSON.stringify({ code: refused.code, message: refused.message, data: refused.data }).replaceAll(to, '<id>');
      }),
    );
    expect(refusals[0]).toEqual(refusals[1]);
    expect(refusals[0]).toContain('not found');
    // The other tests of this file count acme's and evil's cells: leave none behind.
    const acme = await runtime.principal({ tenant: 'acme', agent: 'alice' });
    const evil = await runtime.principal({ tenant: 'evil', agent: 'mallory' });
    for (const id of [answer.node_id, question.node_id]) await runtime.facade.deleteCell(acme, String(id));
    await runtime.facade.deleteCell(evil, String(foreign.node_id));
  });

  it('reads the content of every recalled cell through its resource_link', async () => {
    await recallAndReadAll(alice.client);
  });

  it('reads another tenant’s cell, an out-of-scope cell and an unknown id alike as resource not found', async () => {
    const { structured } = await call(alice.client, 'store', { content: 'Acme secret: the launch is on the 4th.', cell_type: 'Fact' });
    const uri = `hyphae://cells/${String(structured.node_id)}`;
    expect((await readCell(bob.client, uri)).node.node_id).toBe(structured.node_id);
    const replies: unknown[] = [];
    for (const [client, target] of [
      [mallory.client, uri],
      [narrow.client, uri],
      [mallory.client, `hyphae://cells/${randomUUID()}`],
    ] as const) {
      await expectNotFound(client, target);
      replies.push(await client.readResource({ uri: target }).catch((error: { code: number; message: string }) => [error.code, error.message.replace(target, 'URI')]));
    }
    // The foreign reply is the unknown-id reply: nothing says the cell exists.
    expect(new Set(replies.map((reply) => JSON.stringify(reply))).size).toBe(1);
    for (const bad of ['hyphae://cells/not-a-uuid', 'hyphae://nothing', 'file:///etc/passwd', `hyphae://cells/${randomUUID()}/x`]) {
      await expectNotFound(alice.client, bad);
    }
    await expect(alice.client.request({ method: 'resources/read', params: {} as { uri: string } }, ReadResourceResultSchema)).rejects.toMatchObject({ code: -32602 });
  });

  it('lists the readable cells newest first, paginated, none of another tenant', async () => {
    const { key } = await runtime.mintKey({ tenant: 'listing', agent: 'lister' });
    const principal = await runtime.facade.authenticate(key);
    const stored: string[] = [];
    for (let i = 0; i < 53; i += 1) stored.push((await runtime.facade.store(principal, { content: `listed cell ${i}`, cell_type: 'Fact', salience: 0.5 })).node_id);
    const lister = await connectHttp(server.url, key, '2025-11-25');
    try {
      const first = await lister.client.listResources();
      expect(first.resources[0]?.uri).toBe('hyphae://inbox');
      expect(first.nextCursor).toEqual(expect.any(String));
      const second = await lister.client.listResources({ cursor: first.nextCursor });
      expect(second.nextCursor).toBeUndefined();
      const uris = [...first.resources.slice(1), ...second.resources].map((resource) => resource.uri);
      expect(uris).toEqual([...stored].reverse().map((id) => `hyphae://cells/${id}`));
      expect(second.resources[0]).toMatchObject({ mimeType: 'text/markdown', description: 'listed cell 2', annotations: { priority: 0.5 } });
      await expect(lister.client.listResources({ cursor: 'garbage' })).rejects.toMatchObject({ code: -32602 });
    } finally {
      await lister.close();
    }
    const foreign = (await mallory.client.listResources()).resources.map((resource) => resource.uri);
    for (const id of stored) expect(foreign).not.toContain(`hyphae://cells/${id}`);
  });

  it('links every cell named by drain_inbox, pull_diffs and get_scene; hyphae://inbox reads without draining', async () => {
    const reader = bob.client;
    await call(reader, 'place_beacon', { text: 'incident in the payments queue', threshold: 0.3 });
    const { structured: opened } = await call(alice.client, 'open_session', { project: 'default', title: 'payments incident' });
    const storedIds: string[] = [];
    for (const content of ['incident in the payments queue: consumers stalled', 'incident in the payments queue: retries doubled the load']) {
      storedIds.push(String((await call(alice.client, 'store', { content, cell_type: 'Risk', salience: 0.9 })).structured.node_id));
    }

    const inboxText = async (): Promise<{ markdown: string; json: { diffs: { node_id: string }[] } }> => {
      const { contents } = await reader.readResource({ uri: 'hyphae://inbox' });
      const [markdown, json] = contents as { text: string }[];
      return { markdown: markdown?.text ?? '', json: JSON.parse(json?.text ?? 'null') as { diffs: { node_id: string }[] } };
    };
    const before = await inboxText();
    expect(before.json.diffs.map((d) => d.node_id)).toEqual(storedIds);
    for (const id of storedIds) expect(before.markdown).toContain(`hyphae://cells/${id}`);
    expect((await inboxText()).json).toEqual(before.json);

    const pulled = await call(reader, 'pull_diffs', { since: '2000-01-01T00:00:00Z' });
    expect(links(pulled.blocks).map((l) => l.uri)).toEqual(storedIds.map((id) => `hyphae://cells/${id}`));
    expect(links(pulled.blocks)[0]?.description).toMatch(/^created by alice: incident in the payments queue/);

    const drained = await call(reader, 'drain_inbox', {});
    expect((drained.structured.diffs as unknown[]).length).toBe(2);
    expect(links(drained.blocks).map((l) => l.uri)).toEqual(storedIds.map((id) => `hyphae://cells/${id}`));
    for (const link of links(drained.blocks)) expect((await readCell(reader, link.uri ?? '')).node.cell_type).toBe('Risk');
    expect((await inboxText()).json.diffs).toEqual([]);

    const scene = await call(alice.client, 'get_scene', { scene_id: String(opened.scene_id) });
    expect(scene.structured.cell_ids).toEqual(storedIds);
    expect(links(scene.blocks).map((l) => l.uri)).toEqual(storedIds.map((id) => `hyphae://cells/${id}`));
    await call(alice.client, 'close_session', { session_id: String(opened.session_id) });
  });

  it('offers the catch_up prompt and refuses unknown prompts and bad arguments as invalid params', async () => {
    const { prompts } = await alice.client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(['catch_up']);
    const empty = await mallory.client.getPrompt({ name: 'catch_up' });
    expect(empty.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Your Hyphae inbox has no undelivered diffs.\n' } }]);
    await expect(alice.client.getPrompt({ name: 'nope' })).rejects.toMatchObject({ code: -32602 });
    for (const limit of ['0', '51', 'ten', '1.5']) {
      await expect(alice.client.getPrompt({ name: 'catch_up', arguments: { limit } })).rejects.toMatchObject({ code: -32602 });
    }
    await expect(alice.client.getPrompt({ name: 'catch_up', arguments: { other: '1' } })).rejects.toMatchObject({ code: -32602 });
  });

  it('sends no resource_link to revisions that do not have it', async () => {
    const { key } = await runtime.mintKey({ tenant: 'acme', agent: 'old-client' });
    for (const version of ['2025-03-26', '2024-11-05']) {
      const old = await connectHttp(server.url, key, version);
      try {
        const stored = await call(old.client, 'store', { content: `an old client's note (${version})`, cell_type: 'Fact' });
        expect(stored.blocks.map((b) => b.type)).toEqual(['text']);
        const recalled = await call(old.client, 'recall', { query: 'old client note' });
        expect(recalled.blocks.map((b) => b.type)).toEqual(['text']);
        const listed = await old.client.listResources();
        for (const resource of listed.resources) expect(resource).not.toHaveProperty('title');
        // Reading is the same in every revision.
        expect((await readCell(old.client, `hyphae://cells/${String(stored.structured.node_id)}`)).node.content).toContain('old client');
      } finally {
        await old.close();
      }
    }
  });
});

describe('MCP resources over stdio (spawned hyphae mcp) and bridged (--remote)', () => {
  let dataDir: EmbeddedDataDir;
  let runtime: TestRuntime;
  let server: ListeningMcpServer;

  beforeAll(async () => {
    dataDir = await createEmbeddedDataDir('stdio-tenant', 'stdio-agent');
    runtime = await createTestRuntime();
    server = await startMcpHttpServer(runtime.facade);
  });
  afterAll(async () => {
    await server?.close();
    await runtime?.close();
    await dataDir?.remove();
  });

  it('stdio: reads every recalled cell, lists them, and refuses unknown ids', async () => {
    const stdio = await connectStdio('2025-11-25', dataDir);
    try {
      await recallAndReadAll(stdio.client);
      const listed = await stdio.client.listResources();
      expect(listed.resources.map((r) => r.uri)).toContain('hyphae://inbox');
      expect(listed.resources.filter((r) => r.uri.startsWith('hyphae://cells/'))).toHaveLength(CONTENTS.length);
      await expectNotFound(stdio.client, `hyphae://cells/${randomUUID()}`);
    } finally {
      await stdio.close();
    }
  });

  it('bridged: the same reads through hyphae mcp --remote', async () => {
    const { key } = await runtime.mintKey({ tenant: 'bridge', agent: 'bridged' });
    const bridged = await connectBridge('2025-11-25', server.url, key);
    try {
      expect(bridged.client.getServerCapabilities()?.resources).toBeDefined();
      await recallAndReadAll(bridged.client);
      await expectNotFound(bridged.client, `hyphae://cells/${randomUUID()}`);
    } finally {
      await bridged.close();
    }
  });
});
