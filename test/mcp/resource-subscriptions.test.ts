/**
 * resources/subscribe on hyphae://inbox with the official SDK client: a diff landing in the
 * caller's inbox brings `notifications/resources/updated` over Streamable HTTP (the GET stream the
 * SDK opens by itself), over stdio (a spawned `hyphae mcp`), over stdio bridged to HTTP
 * (`--remote`), and across two replicas over a real nats-server (subscribed on one, streamed and
 * produced on the other); and none after resources/unsubscribe. Absence is proven without
 * waiting on a clock: the same batch's `notifications/resources/list_changed`, which follows any
 * `updated` it carries, arrives alone.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runHyphae } from '../support/cli-process.js';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import { createEmbedder } from '../../src/embed/create-embedder.js';
import type { Embedder } from '../../src/embed/embedder.js';
import { MemoryBus } from '../../src/mesh/memory-bus.js';
import { createMeshTestDb } from '../support/mesh/mesh-test-db.js';
import { callTool, startMeshReplica } from '../support/mesh/mesh-replica.js';
import type { MeshReplica } from '../support/mesh/mesh-replica.js';
import { skipWithoutPostgres } from '../support/shared-database.js';
import { waitFor } from '../support/wait-for.js';
import { skipWithoutNatsServer } from '../support/nats-server.js';
import { startReplicaPair } from '../support/mcp/replica-pair.js';
import type { ReplicaPair } from '../support/mcp/replica-pair.js';
import { connectBridge, connectHttp, connectStdio, createEmbeddedDataDir } from '../support/mcp/sdk-clients.js';
import type { ConnectedClient } from '../support/mcp/sdk-clients.js';

const INTEREST = 'the nightly export job to the data warehouse';

interface Heard {
  readonly updated: string[];
  listChanged: number;
}

function listen(client: Client): Heard {
  const heard: Heard = { updated: [], listChanged: 0 };
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (notification) => {
    heard.updated.push(notification.params.uri);
  });
  client.setNotificationHandler(ResourceListChangedNotificationSchema, async () => {
    heard.listChanged += 1;
  });
  return heard;
}

/**
 * Subscribe → one diff → updated; unsubscribe → the next diff's list_changed arrives without an updated.
 * Stories sharing a server store texts of their own (`label`): the same text again would reinforce the earlier cell and gossip nothing.
 */
async function subscribeStory(client: Client, heard: Heard, storeMatching: (content: string) => Promise<void>, label?: string): Promise<void> {
  const own = label === undefined ? '' : ` (${label})`;
  expect(client.getServerCapabilities()?.resources).toMatchObject({ subscribe: true, listChanged: true });
  await client.subscribeResource({ uri: 'hyphae://inbox' });
  await storeMatching(`${INTEREST} failed twice this week${own}`);
  await waitFor(() => heard.updated.length === 1 && heard.listChanged === 1);
  expect(heard.updated).toEqual(['hyphae://inbox']);
  const { contents } = await client.readResource({ uri: 'hyphae://inbox' });
  expect((contents[0] as { text: string }).text).toContain(`${INTEREST} failed twice this week${own}`);

  await client.unsubscribeResource({ uri: 'hyphae://inbox' });
  await storeMatching(`${INTEREST} now runs an hour later${own}`);
  await waitFor(() => heard.listChanged === 2);
  expect(heard.updated).toEqual(['hyphae://inbox']);
}

describe('resources/subscribe over Streamable HTTP and stdio bridged to it', () => {
  let embedder: Embedder;
  let replica: MeshReplica;
  let writerKey: string;
  let mintReader: (agent: string) => Promise<string>;
  const clients: ConnectedClient[] = [];

  beforeAll(async () => {
    embedder = await createEmbedder({ kind: 'hash' });
    replica = await startMeshReplica({ name: 'subscriptions', db: await createMeshTestDb(embedder.dimension), bus: new MemoryBus(), embedder });
    const keys = createKeyAdministration(replica.db);
    writerKey = (await keys.createKey({ tenant: 'acme', agent: 'writer' })).key;
    mintReader = async (agent) => {
      const key = (await keys.createKey({ tenant: 'acme', agent })).key;
      await callTool(replica.url, key, 'place_beacon', { text: INTEREST, threshold: 0.3 });
      return key;
    };
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await replica?.close();
    await embedder?.close();
  });

  const storeMatching = async (content: string): Promise<void> => {
    await callTool(replica.url, writerKey, 'store', { content, cell_type: 'Risk', salience: 0.8 });
  };

  it('HTTP: the SDK client hears updated for its inbox, keyed by its own session, and none after unsubscribe', async () => {
    const key = await mintReader('http-reader');
    const streamsBefore = replica.liveStream.openStreams;
    const subscriber = await connectHttp(new URL(`${replica.url}/mcp`), key, '2025-11-25');
    // A second session of the same agent that never subscribes.
    const bystander = await connectHttp(new URL(`${replica.url}/mcp`), key, '2025-11-25');
    clients.push(subscriber, bystander);
    expect(subscriber.transport.sessionId).toEqual(expect.any(String));
    expect(subscriber.transport.sessionId).not.toBe(bystander.transport.sessionId);
    const heard = listen(subscriber.client);
    const bystanderHeard = listen(bystander.client);
    await waitFor(() => replica.liveStream.openStreams === streamsBefore + 2);

    await subscribeStory(subscriber.client, heard, storeMatching, 'http');
    await waitFor(() => bystanderHeard.listChanged === 2);
    expect(bystanderHeard.updated).toEqual([]);
  });

  it('HTTP: subscribing to a cell it cannot read is resource not found', async () => {
    const key = await mintReader('cell-reader');
    const client = await connectHttp(new URL(`${replica.url}/mcp`), key, '2025-11-25');
    clients.push(client);
    const foreignKey = (await createKeyAdministration(replica.db).createKey({ tenant: 'other', agent: 'x' })).key;
    const foreign = await callTool(replica.url, foreignKey, 'store', { content: 'not yours', cell_type: 'Fact' });
    await expect(client.client.subscribeResource({ uri: `hyphae://cells/${String(foreign.node_id)}` })).rejects.toMatchObject({ code: -32002 });
    const own = await callTool(replica.url, writerKey, 'store', { content: 'yours to watch', cell_type: 'Fact' });
    await expect(client.client.subscribeResource({ uri: `hyphae://cells/${String(own.node_id)}` })).resolves.toEqual({});
    await expect(client.client.subscribeResource({ uri: 'hyphae://elsewhere' })).rejects.toMatchObject({ code: -32002 });
  });

  it('stdio bridged (--remote): the same story through hyphae mcp --remote', async () => {
    const key = await mintReader('bridged-reader');
    const streamsBefore = replica.liveStream.openStreams;
    const bridged = await connectBridge('2025-11-25', new URL(`${replica.url}/mcp`), key);
    clients.push(bridged);
    const heard = listen(bridged.client);
    await waitFor(() => replica.liveStream.openStreams === streamsBefore + 1);
    await subscribeStory(bridged.client, heard, storeMatching, 'bridged');
  });
});

// A spawned process with the default embedder, two hook runs and a data folder of its own: minutes
// on a loaded 2-core machine, so the hang guard is wider than the suite's 60 s (not a timing assertion).
describe('resources/subscribe over stdio (a spawned, embedded hyphae mcp), then the embedded hook', { timeout: 300_000 }, () => {
  it('hears updated for its inbox when its own beacon (include_own) matches its store, none after unsubscribe; the hook prints both once', async () => {
    const dataDir = await createEmbeddedDataDir('solo', 'solo-agent');
    const stdio = await connectStdio('2025-11-25', dataDir);
    try {
      const heard = listen(stdio.client);
      await stdio.client.callTool({ name: 'place_beacon', arguments: { text: INTEREST, threshold: 0.3, include_own: true } });
      await subscribeStory(stdio.client, heard, async (content) => {
        await stdio.client.callTool({ name: 'store', arguments: { content, cell_type: 'Risk', salience: 0.8 } });
      });
      await stdio.close();
      // Embedded, the hook opens the same folder once the MCP server let it go: both diffs, undrained, once.
      const hook = (): ReturnType<typeof runHyphae> =>
        runHyphae(['hook', '--state-dir', join(dataDir.dir, 'hook-state')], cliEnv({ HYPHAE_DATA_DIR: dataDir.dir, HYPHAE_API_KEY: dataDir.key }));
      const first = await hook();
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toContain(`${INTEREST} failed twice this week`);
      expect(first.stdout).toContain(`${INTEREST} now runs an hour later`);
      expect(first.stdout.match(/hyphae:\/\/cells\/[0-9a-f-]{36}/g)).toHaveLength(2);
      expect(await hook()).toMatchObject({ code: 0, stdout: '' });
    } finally {
      await stdio.close();
      await dataDir.remove();
    }
  });
});

describe.skipIf(skipWithoutNatsServer() || skipWithoutPostgres())('resources/subscribe across two replicas over a real nats-server', () => {
  let pair: ReplicaPair | undefined;
  let a: MeshReplica;
  let b: MeshReplica;
  let client: ConnectedClient | undefined;

  beforeAll(async () => {
    pair = await startReplicaPair();
    ({ a, b } = pair);
  });

  afterAll(async () => {
    await client?.close();
    await pair?.close();
  });

  it('a subscription made on replica B reaches the stream on replica A for a diff produced on B', async () => {
    const keys = createKeyAdministration(a.db);
    const writerKey = (await keys.createKey({ tenant: 'acme', agent: 'writer' })).key;
    const readerKey = (await keys.createKey({ tenant: 'acme', agent: 'reader' })).key;
    await callTool(b.url, readerKey, 'place_beacon', { text: INTEREST, threshold: 0.3 });
    client = await connectHttp(new URL(`${a.url}/mcp`), readerKey, '2025-11-25');
    const heard = listen(client.client);
    await waitFor(() => a.liveStream.openStreams === 1);
    const sessionId = client.transport.sessionId ?? '';
    expect(sessionId).not.toBe('');

    // The same MCP session, its subscribe answered by the other replica (as a load balancer would route it).
    const onB = async (method: string): Promise<unknown> => {
      const response = await fetch(`${b.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', 'x-hyphae-key': readerKey, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { uri: 'hyphae://inbox' } }),
      });
      return response.json();
    };
    expect(await onB('resources/subscribe')).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    await callTool(b.url, writerKey, 'store', { content: `${INTEREST} moved to replica b`, cell_type: 'Decision', salience: 0.8 });
    await waitFor(() => heard.updated.length === 1 && heard.listChanged === 1);
    expect(heard.updated).toEqual(['hyphae://inbox']);

    expect(await onB('resources/unsubscribe')).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    await callTool(b.url, writerKey, 'store', { content: `${INTEREST} moved back`, cell_type: 'Decision', salience: 0.8 });
    await waitFor(() => heard.listChanged === 2);
    expect(heard.updated).toEqual(['hyphae://inbox']);
  });
});
