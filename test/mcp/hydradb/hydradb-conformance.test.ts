/**
 * The HydraDB toolset against the vectors written from the HydraDB MCP server's README
 * (hydradb-vectors.ts), with the official SDK client over stdio — the README's Claude Desktop entry
 * launched as written but for the command and key — and over Streamable HTTP — its remote entry,
 * with the Authorization and X-HydraDB-Database headers.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbeddedDataDir, type EmbeddedDataDir } from '../../support/mcp/sdk-clients.js';
import { createTestRuntime, type TestRuntime } from '../../support/test-runtime.js';
import { connectRemoteEntry, desktopConfig, launchStdioEntry, remoteConfig, type HydraClient } from './hydradb-clients.js';
import { startHydraServer } from './hydradb-server.js';
import { DESTRUCTIVE, HYDRADB_TOOL_NAMES, LEGACY_ALIASES, PARAMETERS, READ_ONLY, VECTORS, type HydraVector } from './hydradb-vectors.js';

const NOTE = 'deploy-note';

interface Fixture {
  readonly client: HydraClient;
  close(): Promise<void>;
}

async function stdioFixture(): Promise<Fixture> {
  const data: EmbeddedDataDir = await createEmbeddedDataDir('desk-tenant', 'desktop-agent');
  const entry = desktopConfig(data.key, 'desk-tenant').mcpServers.hydradb;
  const client = await launchStdioEntry(entry, data);
  return { client, close: async () => (await client.close(), await data.remove()) };
}

async function httpFixture(): Promise<Fixture> {
  const runtime: TestRuntime = await createTestRuntime();
  const { app, base } = await startHydraServer(runtime.facade);
  const { key } = await runtime.mintKey({ tenant: 'remote-tenant', agent: 'remote-agent' });
  const client = await connectRemoteEntry(remoteConfig(base, key, 'remote-tenant').mcpServers.hydradb);
  return { client, close: async () => (await client.close(), await app.close(), await runtime.close()) };
}

function resolveArgs(args: Readonly<Record<string, unknown>>, requestId: string): Record<string, unknown> {
  const text = JSON.stringify(args).replaceAll('$NOTE', NOTE).replaceAll('$REQUEST', requestId).replaceAll('$OTHER_DB', 'someone-elses-database');
  return JSON.parse(text) as Record<string, unknown>;
}

async function runVector(client: Client, vector: HydraVector, requestId: string): Promise<void> {
  const call = client.callTool({ name: vector.tool, arguments: resolveArgs(vector.args, requestId) });
  const { expect: expected } = vector;
  if ('error' in expected) {
    const failure = await call.then(() => undefined, (error: unknown) => error);
    expect(failure, vector.name).toBeInstanceOf(McpError);
    expect((failure as McpError).data, vector.name).toMatchObject({ code: expected.error });
    return;
  }
  const result = await call;
  if ('invalid' in expected) {
    expect(result.isError, vector.name).toBe(true);
    const error = (result.structuredContent as { error: { code: string; issues: { path: string }[] } }).error;
    expect(error.code, vector.name).toBe('INVALID_ARGUMENT');
    expect(error.issues.map((issue) => issue.path), vector.name).toContain(expected.invalid);
    return;
  }
  expect(result.isError, `${vector.name}: ${JSON.stringify(result.content)}`).toBe(false);
  expect(result.structuredContent, vector.name).toBeDefined();
  if (expected.structured !== undefined) expect(result.structuredContent, vector.name).toMatchObject(resolveArgs(expected.structured, requestId));
  if (expected.text !== undefined) expect((result.content as { text: string }[])[0]?.text, vector.name).toContain(resolveArgs({ text: expected.text }, requestId).text);
}

describe.each([
  ['stdio, the README’s Claude Desktop entry', stdioFixture],
  ['Streamable HTTP, the README’s remote entry', httpFixture],
] as const)('the HydraDB toolset over %s', (_name, makeFixture) => {
  let fixture: Fixture;
  let client: Client;
  beforeAll(async () => {
    fixture = await makeFixture();
    client = fixture.client.client;
  });
  afterAll(async () => fixture.close());

  it('lists exactly the HydraDB tools, with the README’s parameters and all four annotations', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([...HYDRADB_TOOL_NAMES]);
    for (const tool of tools) {
      const table = PARAMETERS[tool.name as (typeof HYDRADB_TOOL_NAMES)[number]];
      const schema = tool.inputSchema as { properties?: Record<string, unknown>; required?: string[]; additionalProperties?: unknown };
      expect(Object.keys(schema.properties ?? {}).sort(), tool.name).toEqual([...table.all].sort());
      expect([...(schema.required ?? [])].sort(), tool.name).toEqual([...table.required].sort());
      expect(schema.additionalProperties).toBe(false);
      expect(tool.annotations, tool.name).toEqual({
        title: tool.title,
        readOnlyHint: READ_ONLY.includes(tool.name),
        destructiveHint: DESTRUCTIVE.includes(tool.name),
        idempotentHint: expect.any(Boolean),
        openWorldHint: false,
      });
    }
    // The deprecated names and the Cypher graph tools are not registered by default.
    for (const name of [...Object.keys(LEGACY_ALIASES), 'hydradb_graph_query']) {
      await expect(client.callTool({ name, arguments: {} }), name).rejects.toMatchObject({ code: -32602 });
    }
  });

  it('answers every vector as the README says', async () => {
    const saved = await client.callTool({ name: 'hydradb_ingest', arguments: { text: 'The deploy window is Tuesday 10:00 UTC.', title: 'Deploy window', source_id: NOTE } });
    expect(saved.isError).toBe(false);
    expect(saved.structuredContent).toMatchObject({ id: NOTE, kind: 'memory', state: 'ready' });
    const queried = await client.callTool({ name: 'hydradb_query', arguments: { query: 'when is the deploy window' } });
    const requestId = (queried.structuredContent as { request_id: string }).request_id;
    for (const vector of VECTORS) {
      if (vector.name === 'ingest: replace under a source_id') continue;
      await runVector(client, vector, requestId);
    }
  });

  it('finds the note by meaning, by keyword and by title, and reads it back whole', async () => {
    await client.callTool({ name: 'hydradb_ingest', arguments: { text: 'Backups run nightly at 02:00 from the replica.', title: 'Backups', source_id: 'backup-note' } });
    const found = await client.callTool({ name: 'hydradb_query', arguments: { query: 'when do backups run', max_results: 3 } });
    const ids = (found.structuredContent as { results: { id: string }[] }).results.map((hit) => hit.id);
    expect(ids).toContain('backup-note');
    // The request_id closes the text output, as hydradb_feedback's description tells the agent to copy it.
    const requestId = (found.structuredContent as { request_id: string }).request_id;
    expect(requestId).toMatch(/\S{8,}/);
    expect((found.content as { text: string }[])[0]?.text.endsWith(`\n\nrequest_id: ${requestId}`)).toBe(true);
    const phrase = await client.callTool({ name: 'hydradb_query', arguments: { query: 'nightly at 02:00', operator: 'phrase' } });
    expect((phrase.structuredContent as { results: { id: string }[] }).results.map((hit) => hit.id)).toEqual(['backup-note']);
    const none = await client.callTool({ name: 'hydradb_query', arguments: { query: 'at nightly 02:00', operator: 'phrase' } });
    expect((none.structuredContent as { results: unknown[] }).results).toEqual([]);
    const titled = await client.callTool({ name: 'hydradb_query', arguments: { query: 'schedule', titles: ['BACKUPS'] } });
    expect(new Set((titled.structuredContent as { results: { id: string }[] }).results.map((hit) => hit.id))).toEqual(new Set(['backup-note']));
    const read = await client.callTool({ name: 'hydradb_inspect', arguments: { id: 'backup-note' } });
    expect(read.structuredContent).toMatchObject({ id: 'backup-note', text: 'Backups run nightly at 02:00 from the replica.', next_offset: null });
    const listed = await client.callTool({ name: 'hydradb_list', arguments: { kind: 'memory', page_size: 1 } });
    expect(listed.structuredContent).toMatchObject({ page: 1, page_size: 1, next_page: 2 });
    expect((listed.content as { text: string }[])[0]?.text).toMatch(/^Showed 1–1 of \d+ memories \(page 1\)\. Pass page: 2/);
  });
});
