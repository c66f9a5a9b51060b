/**
 * Conformance with the official MCP SDK client, over stdio (a spawned `hyphae mcp`), Streamable
 * HTTP (the real app listening on loopback) and stdio bridged to that app (`hyphae mcp --remote`), for each protocol revision: negotiation, the tool roster with its
 * annotations and schemas, every tool called with valid and with invalid arguments.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../../src/mcp/protocol/protocol-version.js';
import type { ProtocolVersion } from '../../src/mcp/protocol/protocol-version.js';
import { TOOL_DESCRIPTORS } from '../../src/mcp/features/tools/tool-registry.js';
import { createTestRuntime } from '../support/test-runtime.js';
import type { TestRuntime } from '../support/test-runtime.js';
import { startMcpHttpServer } from './mcp-http-server.js';
import type { ListeningMcpServer } from './mcp-http-server.js';
import { cloneDataDir, connectBridge, connectHttp, connectStdio, createEmbeddedDataDir } from '../support/mcp/sdk-clients.js';
import type { ConnectedClient, EmbeddedDataDir } from '../support/mcp/sdk-clients.js';
import { SPEC_TABLE } from './spec-table.js';

type Structured = Record<string, unknown>;

async function callOk(client: Client, name: string, args: Record<string, unknown>): Promise<Structured> {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError).toBe(false);
  const content = result.content as { type: string; text: string }[];
  expect(content[0]?.type).toBe('text');
  expect(JSON.parse(content[0]?.text ?? 'null')).toEqual(result.structuredContent);
  // What follows the text block are the links to the cells the result names (test/mcp/resources.test.ts).
  expect(content.slice(1).every((block) => block.type === 'resource_link')).toBe(true);
  return result.structuredContent as Structured;
}

/** Minimal valid arguments per tool, given the ids a scenario produced. */
function validArguments(ids: { sessionId: string; sceneId: string }): Record<string, Record<string, unknown>> {
  return {
    store: { content: 'A fact', cell_type: 'Fact' },
    recall: { query: 'anything' },
    query: { query: 'anything', layer: 'L2' },
    open_session: { project: 'scratch' },
    close_session: { session_id: ids.sessionId },
    place_beacon: { text: 'anything' },
    list_beacons: {},
    pull_diffs: { since: '2000-01-01T00:00:00Z' },
    get_scene: { scene_id: ids.sceneId },
    list_scenes: {},
    drain_inbox: {},
  };
}

interface Fixture {
  readonly connect: (version: ProtocolVersion) => Promise<{ connected: ConnectedClient; agent: string }>;
  readonly close: () => Promise<void>;
}

async function httpFixture(viaBridge: boolean): Promise<Fixture> {
  const runtime: TestRuntime = await createTestRuntime();
  const server: ListeningMcpServer = await startMcpHttpServer(runtime.facade);
  return {
    async connect(version) {
      const agent = `http-agent-${version}`;
      const { key } = await runtime.mintKey({ tenant: `conformance-${version}`, agent });
      const connected = viaBridge ? await connectBridge(version, server.url, key) : await connectHttp(server.url, key, version);
      return { connected, agent };
    },
    async close() {
      await server.close();
      await runtime.close();
    },
  };
}

async function stdioFixture(): Promise<Fixture> {
  const agent = 'stdio-agent';
  const template = await createEmbeddedDataDir('conformance', agent);
  const clones: EmbeddedDataDir[] = [];
  return {
    async connect(version) {
      const dataDir = await cloneDataDir(template);
      clones.push(dataDir);
      return { connected: await connectStdio(version, dataDir), agent };
    },
    async close() {
      await Promise.all([template, ...clones].map((dir) => dir.remove()));
    },
  };
}

const FIXTURES: Record<'stdio' | 'http' | 'stdio bridged to http (--remote)', () => Promise<Fixture>> = {
  stdio: stdioFixture,
  http: () => httpFixture(false),
  'stdio bridged to http (--remote)': () => httpFixture(true),
};

describe.each(['stdio', 'http', 'stdio bridged to http (--remote)'] as const)('MCP conformance over %s', (transportName) => {
  let fixture: Fixture;
  const clients = new Map<ProtocolVersion, { connected: ConnectedClient; agent: string }>();
  beforeAll(async () => {
    fixture = await FIXTURES[transportName]();
    // Connected up front and together: each stdio server is a process with its own database to start.
    const connections = await Promise.all(SUPPORTED_PROTOCOL_VERSIONS.map((version) => fixture.connect(version)));
    SUPPORTED_PROTOCOL_VERSIONS.forEach((version, index) => {
      const connection = connections[index];
      if (connection !== undefined) clients.set(version, connection);
    });
  });
  afterAll(async () => {
    await Promise.all([...clients.values()].map(({ connected }) => connected.close()));
    await fixture.close();
  });

  describe.each(SUPPORTED_PROTOCOL_VERSIONS)('revision %s', (version) => {
    let connected: ConnectedClient;
    let client: Client;
    let agent: string;
    const ids = { sessionId: '', sceneId: '' };

    beforeAll(() => {
      const connection = clients.get(version);
      if (connection === undefined) throw new Error(`no client for ${version}`);
      ({ connected, agent } = connection);
      client = connected.client;
    });

    it('negotiates the requested revision and announces the tools capability', () => {
      expect(connected.transport.negotiatedVersion).toBe(version);
      expect(client.getServerVersion()?.name).toBe('hyphae');
      expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: false });
      expect(client.getInstructions()).toMatch(/Hyphae/);
    });

    it('lists exactly the eleven tools with their annotations and schemas', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(Object.keys(SPEC_TABLE).sort());
      for (const tool of tools) {
        const row = SPEC_TABLE[tool.name];
        const descriptor = TOOL_DESCRIPTORS.find((candidate) => candidate.name === tool.name);
        expect(row).toBeDefined();
        expect(tool.annotations).toMatchObject({
          readOnlyHint: row?.readOnly,
          destructiveHint: row?.destructive,
          idempotentHint: row?.idempotent,
          openWorldHint: false,
        });
        expect(tool.inputSchema).toEqual(descriptor?.inputSchema);
        expect(tool.inputSchema.type).toBe('object');
        expect((tool.inputSchema as { additionalProperties?: unknown }).additionalProperties).toBe(false);
        expect(tool.outputSchema?.type).toBe('object');
        // No argument claims an identity (recall's source_agents filters by author; it names nobody as the caller).
        expect(Object.keys((tool.inputSchema as { properties?: object }).properties ?? {})).not.toContain('source_agent');
        expect(JSON.stringify(tool.inputSchema)).not.toMatch(/tenant_id|"source_agent"/);
        expect(tool.title).toBeTruthy();
        expect(tool.description).toBeTruthy();
      }
    });

    it('calls every tool with valid arguments; results conform to their outputSchema', async () => {
      await client.listTools(); // caches the output validators the SDK checks every result against
      const project = `conformance-${version}`;
      const opened = await callOk(client, 'open_session', { project, title: 'choosing a database' });
      ids.sessionId = String(opened.session_id);
      ids.sceneId = String(opened.scene_id);

      const { beacon_id: beaconId } = await callOk(client, 'place_beacon', {
        text: 'We chose PostgreSQL with pgvector as the database',
        threshold: 0.2,
        include_own: true,
        project,
      });
      const storeArgs = {
        content: 'We chose PostgreSQL with pgvector as the database for memory',
        cell_type: 'Decision',
        salience: 0.9,
        source_ref: { kind: 'file', locator: 'docs/adr/0001.md:1' },
        metadata: { adr: 1 },
        idempotency_key: `adr-1-${version}`,
      };
      const { node_id: nodeId } = await callOk(client, 'store', storeArgs);
      expect(await callOk(client, 'store', storeArgs)).toEqual({ node_id: nodeId, reinforced: false });

      const recalled = await callOk(client, 'recall', { query: 'PostgreSQL database', k: 5 });
      expect((recalled.results as { node_id: string }[]).map((hit) => hit.node_id)).toContain(nodeId);
      expect(JSON.stringify(recalled)).not.toContain('pgvector as the database');
      const queried = await callOk(client, 'query', { query: 'PostgreSQL database', layer: 'L0', cell_types: ['Decision'] });
      expect((queried.results as { node_id: string }[]).map((hit) => hit.node_id)).toContain(nodeId);

      const beacons = await callOk(client, 'list_beacons', { limit: 10 });
      expect((beacons.beacons as { beacon_id: string }[]).map((beacon) => beacon.beacon_id)).toContain(beaconId);
      expect(beacons).toHaveProperty('next_cursor');

      const pulled = await callOk(client, 'pull_diffs', { since: '2000-01-01T00:00:00Z', limit: 50 });
      const pulledDiff = (pulled.diffs as { node_id: string; source_agent: string }[]).find((diff) => diff.node_id === nodeId);
      expect(pulledDiff?.source_agent).toBe(agent);
      expect(typeof pulled.next_since).toBe('string');

      const scene = await callOk(client, 'get_scene', { scene_id: ids.sceneId });
      expect(scene.cell_ids).toContain(nodeId);
      expect(scene.created_by).toBe(agent);
      expect(scene.project).toBe(project);

      const scenes = await callOk(client, 'list_scenes', { project });
      expect((scenes.scenes as { scene_id: string }[]).map((entry) => entry.scene_id)).toContain(ids.sceneId);

      const drained = await callOk(client, 'drain_inbox', { page_size: 50 });
      expect((drained.diffs as { node_id: string }[]).map((diff) => diff.node_id)).toContain(nodeId);
      expect(drained.has_more).toBe(false);

      const closed = await callOk(client, 'close_session', { session_id: ids.sessionId });
      expect(closed.session_id).toBe(ids.sessionId);
      await callOk(client, 'close_session', { session_id: ids.sessionId });
    });

    it('refuses invalid arguments to every tool as the revision prescribes', async () => {
      const valid = validArguments(ids);
      for (const tool of Object.keys(SPEC_TABLE)) {
        const args = { ...valid[tool], source_agent: 'mallory' };
        if (version === '2025-11-25') {
          const result = await client.callTool({ name: tool, arguments: args });
          expect(result.isError, tool).toBe(true);
          const error = (result.structuredContent as { error: { code: string; issues: { path: string }[] } }).error;
          expect(error.code).toBe('INVALID_ARGUMENT');
          expect(error.issues.map((issue) => issue.path)).toContain('source_agent');
        } else {
          const failure = await client.callTool({ name: tool, arguments: args }).then(
            () => undefined,
            (error: unknown) => error,
          );
          expect(failure, tool).toBeInstanceOf(McpError);
          expect((failure as McpError).code).toBe(-32602);
          expect((failure as McpError).data).toMatchObject({ code: 'INVALID_ARGUMENT', issues: [{ path: 'source_agent' }] });
        }
      }
    });

    it('answers an unknown tool with -32602 and a facade error with its stable code', async () => {
      await expect(client.callTool({ name: 'consolidate_scene', arguments: {} })).rejects.toMatchObject({ code: -32602 });
      await expect(client.callTool({ name: 'get_scene', arguments: { scene_id: randomUUID() } })).rejects.toMatchObject({
        code: -32003,
        data: { code: 'NOT_FOUND' },
      });
      expect(await client.ping()).toEqual({});
    });
  });
});
