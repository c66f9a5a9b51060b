/**
 * Identity is never self-asserted and tenancy is absolute, through every MCP tool: stdio takes
 * its identity from the launch key, HTTP from each request's key; another tenant's ids read as
 * not found, and its data never shows up in any listing.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnauthenticatedError } from '../../src/core/errors.js';
import { resolveStdioPrincipal } from '../../src/mcp/transports/stdio-server.js';
import { createTestRuntime } from '../support/test-runtime.js';
import type { MintedKey, TestRuntime } from '../support/test-runtime.js';
import { startInProcessStdio } from './in-process-stdio.js';
import type { InProcessStdio, RpcReply } from './in-process-stdio.js';
import { startMcpHttpServer } from './mcp-http-server.js';
import type { ListeningMcpServer } from './mcp-http-server.js';
import { HYPHAE_BIN, REPO_ROOT, hyphaeEnv } from '../support/mcp/sdk-clients.js';

let runtime: TestRuntime;
let server: ListeningMcpServer;
let alice: MintedKey;
let bob: MintedKey;
let mallory: MintedKey;
beforeAll(async () => {
  runtime = await createTestRuntime();
  server = await startMcpHttpServer(runtime.facade);
  alice = await runtime.mintKey({ tenant: 'acme', agent: 'alice' });
  bob = await runtime.mintKey({ tenant: 'acme', agent: 'bob' });
  mallory = await runtime.mintKey({ tenant: 'evil', agent: 'mallory' });
});
afterAll(async () => {
  await server.close();
  await runtime.close();
});

async function httpCall(key: string, name: string, args: Record<string, unknown>): Promise<RpcReply> {
  const response = await fetch(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hyphae-key': key, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as RpcReply;
}

async function httpOk(key: string, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const reply = await httpCall(key, name, args);
  expect(reply.error).toBeUndefined();
  expect(reply.result?.isError).toBe(false);
  return reply.result?.structuredContent as Record<string, unknown>;
}

describe('stdio identity', () => {
  it('refuses to start without a key or with an unknown one', async () => {
    await expect(resolveStdioPrincipal(runtime.facade, undefined)).rejects.toThrow(/HYPHAE_API_KEY is not set/);
    await expect(resolveStdioPrincipal(runtime.facade, '  ')).rejects.toBeInstanceOf(UnauthenticatedError);
    await expect(resolveStdioPrincipal(runtime.facade, 'hyk_not_a_key')).rejects.toThrow(/not accepted/);
    expect((await resolveStdioPrincipal(runtime.facade, alice.key)).agent).toBe('alice');
  });

  it('stamps every stored cell with the launch key agent and refuses a spoofed source_agent', async () => {
    const stdio = await startInProcessStdio(runtime.facade, await resolveStdioPrincipal(runtime.facade, alice.key));
    try {
      const { node_id: nodeId } = await stdio.callTool('store', { content: 'The build runs on Node 20', cell_type: 'Fact' });
      const node = await runtime.facade.getCell(alice.principal, String(nodeId));
      expect(node.source_agent).toBe('alice');

      const before = await runtime.facade.listCells(alice.principal, { limit: 200 });
      const spoof = await stdio.request('tools/call', {
        name: 'store',
        arguments: { content: 'Written by bob, honest', cell_type: 'Fact', source_agent: 'bob' },
      });
      expect(spoof.result?.isError).toBe(true);
      const tenantSpoof = await stdio.request('tools/call', {
        name: 'store',
        arguments: { content: 'Into another tenant', cell_type: 'Fact', tenant_id: 'evil' },
      });
      expect(tenantSpoof.result?.isError).toBe(true);
      const after = await runtime.facade.listCells(alice.principal, { limit: 200 });
      expect(after.items.length).toBe(before.items.length);
    } finally {
      await stdio.close();
    }
  });

  it.each([
    ['a missing key', undefined],
    ['an unknown key', 'hy_unknown_unknown_unknown_unknown'],
  ])('`hyphae mcp` exits with code 2 and a message on stderr for %s, writing nothing on stdout', async (_label, key) => {
    const dataDir = await mkdtemp(join(tmpdir(), 'hyphae-mcp-test-'));
    const env = hyphaeEnv({ HYPHAE_DATA_DIR: dataDir, ...(key === undefined ? {} : { HYPHAE_API_KEY: key }) });
    const child = spawn(process.execPath, [HYPHAE_BIN, 'mcp'], { cwd: REPO_ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    await rm(dataDir, { recursive: true, force: true });
    expect(code).toBe(2);
    expect(stderr).toMatch(/HYPHAE_API_KEY/);
    expect(stdout).toBe('');
  });
});

describe('HTTP identity', () => {
  it('stamps the agent of the request key and refuses a spoofed source_agent', async () => {
    const { node_id: nodeId } = await httpOk(bob.key, 'store', { content: 'Deploys happen on Tuesdays', cell_type: 'Constraint' });
    expect((await runtime.facade.getCell(bob.principal, String(nodeId))).source_agent).toBe('bob');
    const spoof = await httpCall(bob.key, 'store', { content: 'x', cell_type: 'Fact', source_agent: 'alice' });
    expect(spoof.result?.isError).toBe(true);
  });
});

describe('tenant isolation through every tool', () => {
  let stdio: InProcessStdio;
  let sceneId: string;
  let sessionId: string;
  let nodeId: string;
  let beaconId: string;
  beforeAll(async () => {
    // Alice (tenant acme) works over stdio; Bob (acme) has a beacon that gets gossip.
    await httpOk(bob.key, 'place_beacon', { text: 'Kafka retention incident', threshold: 0.2 });
    stdio = await startInProcessStdio(runtime.facade, alice.principal);
    const opened = await stdio.callTool('open_session', { project: 'payments', title: 'Kafka incident' });
    sceneId = String(opened.scene_id);
    sessionId = String(opened.session_id);
    nodeId = String((await stdio.callTool('store', { content: 'Kafka retention incident: topics lost data after 24h', cell_type: 'Risk', salience: 1 })).node_id);
    beaconId = String((await stdio.callTool('place_beacon', { text: 'Kafka retention incident', threshold: 0.2, include_own: true })).beacon_id);
  });
  afterAll(async () => {
    await stdio.close();
  });

  it('the same tenant sees the data (so the checks below can fail)', async () => {
    const bobSession = await httpOk(bob.key, 'open_session', { project: 'payments' });
    const recalled = await httpOk(bob.key, 'recall', { query: 'Kafka retention incident', k: 50 });
    expect(JSON.stringify(recalled)).toContain(nodeId);
    await httpOk(bob.key, 'close_session', { session_id: bobSession.session_id });
    expect(JSON.stringify(await httpOk(bob.key, 'drain_inbox', { page_size: 100 }))).toContain(nodeId);
    expect(JSON.stringify(await httpOk(bob.key, 'get_scene', { scene_id: sceneId }))).toContain(nodeId);
  });

  it('another tenant finds nothing by search, listing or inbox', async () => {
    for (const [tool, args] of [
      ['open_session', { project: 'payments' }],
      ['recall', { query: 'Kafka retention incident', k: 100 }],
      ['query', { query: 'Kafka retention incident', layer: 'L0', k: 100 }],
      ['list_scenes', { limit: 200 }],
      ['list_beacons', { limit: 200 }],
      ['pull_diffs', { since: '2000-01-01T00:00:00Z', limit: 500 }],
      ['drain_inbox', { page_size: 500 }],
    ] as const) {
      const text = JSON.stringify(await httpOk(mallory.key, tool, args));
      // Mallory may name a project "payments" too (projects are per tenant), so only ids and names of acme count.
      for (const foreign of [nodeId, sceneId, beaconId, sessionId, 'alice', 'acme']) {
        expect(text, `${tool} leaks ${foreign}`).not.toContain(foreign);
      }
    }
  });

  it("another tenant's ids read exactly like ids that do not exist", async () => {
    const unknown = randomUUID();
    for (const [tool, args, unknownArgs] of [
      ['get_scene', { scene_id: sceneId }, { scene_id: unknown }],
      ['close_session', { session_id: sessionId }, { session_id: unknown }],
      ['store', { content: 'sneak in', cell_type: 'Fact', scene_id: sceneId }, { content: 'sneak in', cell_type: 'Fact', scene_id: unknown }],
      ['place_beacon', { text: 'watch it', scene_id: sceneId }, { text: 'watch it', scene_id: unknown }],
      ['recall', { query: 'Kafka', scene_id: sceneId }, { query: 'Kafka', scene_id: unknown }],
    ] as const) {
      const foreignReply = await httpCall(mallory.key, tool, args);
      const unknownReply = await httpCall(mallory.key, tool, unknownArgs);
      const normalise = (reply: RpcReply): string => JSON.stringify(reply).replaceAll(sceneId, 'ID').replaceAll(sessionId, 'ID').replaceAll(unknown, 'ID').replace(/"request_id\\?":\\?"[0-9a-f-]{36}/g, 'REQUEST_ID');
      expect(normalise(foreignReply), tool).toBe(normalise(unknownReply));
      expect(JSON.stringify(foreignReply)).not.toMatch(/payments|alice|acme/);
    }
  });

  it('the foreign session is still open for its owner', async () => {
    const closed = await stdio.callTool('close_session', { session_id: sessionId });
    expect(closed.session_id).toBe(sessionId);
  });
});
