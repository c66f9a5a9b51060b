/**
 * Interoperability: the official MCP SDK client (Streamable HTTP) opens the GET /mcp stream by
 * itself after initialization and receives pushed diffs as notifications.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import type { Diff } from '../../src/core/entities.js';
import { createEmbedder } from '../../src/embed/create-embedder.js';
import type { Embedder } from '../../src/embed/embedder.js';
import { DIFF_NOTIFICATION_METHOD } from '../../src/mcp/protocol/diff-extension.js';
import { MemoryBus } from '../../src/mesh/memory-bus.js';
import { createMeshTestDb } from '../support/mesh/mesh-test-db.js';
import { callTool, startMeshReplica } from '../support/mesh/mesh-replica.js';
import type { MeshReplica } from '../support/mesh/mesh-replica.js';
import { waitFor } from '../support/wait-for.js';

const INTEREST = 'flaky integration tests in the billing suite';

describe('the official MCP SDK client receives live diffs over GET /mcp', () => {
  let embedder: Embedder;
  let replica: MeshReplica;
  let client: Client;
  let writerKey: string;

  beforeAll(async () => {
    embedder = await createEmbedder({ kind: 'hash' });
    const db = await createMeshTestDb(embedder.dimension);
    replica = await startMeshReplica({ name: 'sdk', db, bus: new MemoryBus(), embedder });
    const keys = createKeyAdministration(db);
    writerKey = (await keys.createKey({ tenant: 'acme', agent: 'writer' })).key;
    const readerKey = (await keys.createKey({ tenant: 'acme', agent: 'reader' })).key;
    client = new Client({ name: 'sdk-live-push-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${replica.url}/mcp`), {
      requestInit: { headers: { 'x-hyphae-key': readerKey, 'x-hyphae-diffs': 'on' } },
    });
    await client.connect(transport);
    await client.callTool({ name: 'place_beacon', arguments: { text: INTEREST, threshold: 0.5 } });
  });

  afterAll(async () => {
    await client?.close();
    await replica?.close();
    await embedder?.close();
  });

  it('delivers notifications/hyphae/diff for another agent’s store', async () => {
    const received: Diff[] = [];
    client.fallbackNotificationHandler = async (notification): Promise<void> => {
      if (notification.method === DIFF_NOTIFICATION_METHOD) received.push((notification.params as { diff: Diff }).diff);
    };
    await waitFor(() => replica.liveStream.openStreams === 1);
    const first = await callTool(replica.url, writerKey, 'store', { content: INTEREST, cell_type: 'Risk', salience: 0.8 });
    const second = await callTool(replica.url, writerKey, 'store', { content: `${INTEREST}, again`, cell_type: 'Lesson', salience: 0.8 });
    await waitFor(() => received.length === 2);
    expect(received.map((d) => d.node_id)).toEqual([first.node_id, second.node_id]);
    expect(received.map((d) => d.seq)).toEqual([1, 2]);
  });
});
