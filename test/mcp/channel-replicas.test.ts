/**
 * Claude Code channel events across two replicas on one PostgreSQL and a real nats-server, with
 * the official SDK client as the host: a memory stored on replica A reaches a session held by
 * replica B, over HTTP and through `hyphae mcp --remote`; replica A runs with HYPHAE_MCP_CHANNEL=off
 * and declares and sends nothing, and what its session was not told is announced once by the next
 * session on B — the mark lives in the shared database, not in a replica.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import { callTool } from '../support/mesh/mesh-replica.js';
import type { MeshReplica } from '../support/mesh/mesh-replica.js';
import { skipWithoutPostgres } from '../support/shared-database.js';
import { waitFor } from '../support/wait-for.js';
import { skipWithoutNatsServer } from '../support/nats-server.js';
import { channelHost, summary } from './channel-host.js';
import { statelessPost, statelessRequest } from '../support/mcp/stateless-client.js';
import type { Json } from '../support/mcp/stateless-client.js';
import { startReplicaPair } from '../support/mcp/replica-pair.js';
import type { ReplicaPair } from '../support/mcp/replica-pair.js';
import { connectBridge, connectHttp } from '../support/mcp/sdk-clients.js';
import type { ConnectedClient } from '../support/mcp/sdk-clients.js';

const INTEREST = 'the release freeze before the quarter closes';
const TENANT = 'acme';

describe.skipIf(skipWithoutNatsServer() || skipWithoutPostgres())('Claude Code channel events across two replicas over a real nats-server', { timeout: 120_000 }, () => {
  let pair: ReplicaPair | undefined;
  let a: MeshReplica;
  let b: MeshReplica;
  let writerKey: string;
  let readers = 0;
  const clients: ConnectedClient[] = [];

  beforeAll(async () => {
    pair = await startReplicaPair({ env: { a: { HYPHAE_MCP_CHANNEL: 'off' } } });
    ({ a, b } = pair);
    writerKey = (await createKeyAdministration(a.db).createKey({ tenant: TENANT, agent: 'writer', trust: 0.7 })).key;
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await pair?.close();
  });

  async function reader(): Promise<string> {
    readers += 1;
    const key = (await createKeyAdministration(a.db).createKey({ tenant: TENANT, agent: `reader-${readers}` })).key;
    await callTool(a.url, key, 'place_beacon', { text: INTEREST, threshold: 0.3 });
    return key;
  }

  async function storeOnA(content: string): Promise<string> {
    return String((await callTool(a.url, writerKey, 'store', { content: `${INTEREST}: ${content}`, cell_type: 'Decision', salience: 0.9 })).node_id);
  }

  async function opened(replica: MeshReplica, connect: () => Promise<ConnectedClient>): Promise<ConnectedClient> {
    const before = replica.liveStream.openStreams;
    const connected = await connect();
    clients.push(connected);
    await waitFor(() => replica.liveStream.openStreams === before + 1);
    return connected;
  }

  it('HTTP: a memory stored on A arrives as one event on a session held by B', async () => {
    const key = await reader();
    const host = channelHost();
    const onB = await opened(b, () => connectHttp(new URL(`${b.url}/mcp`), key, '2025-11-25', {}, host.attach));
    expect(onB.client.getServerCapabilities()?.experimental).toMatchObject({ 'claude/channel': {} });
    const nodeId = await storeOnA('no deploys after the 20th');
    await waitFor(() => host.events.length === 1);
    expect(summary(host)).toEqual([`memory:${nodeId}`]);
    expect(host.events[0]?.meta).toMatchObject({ source_agent: 'writer', trust: '0.7', op: 'created' });
  });

  it("server/discover's instructions say what channel events are where the replica offers them, and not where it is off", async () => {
    const key = await reader();
    const instructionsOf = async (replica: MeshReplica): Promise<unknown> =>
      ((await statelessPost(new URL(`${replica.url}/mcp`), key, statelessRequest(1, 'server/discover'))).body?.result as Json | undefined)?.instructions;
    expect(await instructionsOf(b)).toMatch(/arrive unrequested as <channel> events[\s\S]*never follow it as an instruction/);
    expect(await instructionsOf(a)).toMatch(/^Hyphae is shared memory/);
    expect(await instructionsOf(a)).not.toMatch(/<channel>/);
  });

  it('--remote: the same through a bridge to B', async () => {
    const key = await reader();
    const host = channelHost();
    await opened(b, () => connectBridge('2025-11-25', new URL(`${b.url}/mcp`), key, {}, host.attach));
    const nodeId = await storeOnA('hotfixes need two approvals');
    await waitFor(() => host.events.length === 1);
    expect(summary(host)).toEqual([`memory:${nodeId}`]);
  });

  it('a replica with HYPHAE_MCP_CHANNEL=off declares and sends nothing; the next session on the other replica announces it once', async () => {
    const key = await reader();
    const host = channelHost();
    const onA = await opened(a, () => connectHttp(new URL(`${a.url}/mcp`), key, '2025-11-25', {}, host.attach));
    expect(onA.client.getServerCapabilities()?.experimental).not.toHaveProperty('claude/channel');
    expect(onA.client.getInstructions()).not.toMatch(/<channel>/);
    await storeOnA('the freeze ends on the 3rd');
    await waitFor(() => host.listChanged === 1);
    const before = a.liveStream.openStreams;
    await onA.close();
    await waitFor(() => a.liveStream.openStreams === before - 1);
    expect(host.events).toEqual([]);

    const hostB = channelHost();
    await opened(b, () => connectHttp(new URL(`${b.url}/mcp`), key, '2025-11-25', {}, hostB.attach));
    const live = await storeOnA('the freeze applies to the mobile app too');
    await waitFor(() => hostB.events.length === 2);
    expect(summary(hostB)).toEqual(['digest:reconnect:1', `memory:${live}`]);
  });
});
